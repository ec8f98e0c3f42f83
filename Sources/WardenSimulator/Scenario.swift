public enum Scenario {}
