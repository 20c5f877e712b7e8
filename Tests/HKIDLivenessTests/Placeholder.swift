// placeholder until the session tests land; delete me
