/// A demo step that cannot go on, with what to do about it.
struct DemoError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
