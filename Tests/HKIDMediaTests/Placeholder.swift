// placeholder; delete me
