print("entitlementd: not yet wired")
