public enum WardenClientPlaceholder {}
