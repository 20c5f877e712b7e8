// placeholder until the session lands; delete me
