print("ballast")
