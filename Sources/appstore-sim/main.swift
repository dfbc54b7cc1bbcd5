print("appstore-sim: not yet implemented")
