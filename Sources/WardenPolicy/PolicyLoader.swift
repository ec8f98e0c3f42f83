public enum PolicyLoader {}
