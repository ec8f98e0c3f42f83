/// File paths taken apart as text, the way the shell's `dirname` and `basename` do.
public enum PathText {
    /// The folder part of `path`: "/a/b" gives "/a", "/a" gives "/", "b" gives "" (trailing
    /// slashes ignored).
    public static func directory(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        if slash == trimmed.startIndex { return "/" }
        return withoutTrailingSlashes(String(trimmed[..<slash]))
    }

    /// The last part of `path`: "/a/b.toml" gives "b.toml" (trailing slashes ignored).
    public static func lastComponent(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return trimmed == "/" ? "/" : String(trimmed[trimmed.index(after: slash)...])
    }

    /// `name` without its extension: "day.toml" gives "day"; ".hidden" stays.
    public static func deletingExtension(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// `component` under `directory`, with one slash between them.
    public static func joining(_ directory: String, _ component: String) -> String {
        if directory.isEmpty { return component }
        return directory.hasSuffix("/") ? directory + component : directory + "/" + component
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var view = Substring(path)
        while view.count > 1, view.last == "/" { view.removeLast() }
        return String(view)
    }
}
