/// The version of appwarden: the daemon's `GET /v1/health` and `appwarden --version`.
public enum WardenVersion {
    public static let current = "0.1.0"
}
