public enum WardenRuntimePlaceholder {}
