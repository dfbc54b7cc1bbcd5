print("entitlementctl: not yet implemented")
