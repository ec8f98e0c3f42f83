print("appwarden")
