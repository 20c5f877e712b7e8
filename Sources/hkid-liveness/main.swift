print("hkid-liveness")
