print("attestguard")
