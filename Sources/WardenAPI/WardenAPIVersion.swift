public enum WardenAPIVersion { public static let current = 1 }
