// placeholder until the vision tests land; delete me
