public enum CgroupLayout {}
