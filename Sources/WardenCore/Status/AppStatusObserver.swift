/// Something that wants to hear about status changes (§1.5), such as an SDK that stops its
/// work when its app goes to background.
public protocol AppStatusObserver: AnyObject {
    /// `app`'s coarse status changed to `status`.
    func appStatusDidChange(app: String, to status: AppStatus)
}
