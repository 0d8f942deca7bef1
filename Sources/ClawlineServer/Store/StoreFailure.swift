/// A store operation that did not do what it must (a row that should exist did not come back, a
/// file that should be read could not be): the description says which.
struct StoreFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
