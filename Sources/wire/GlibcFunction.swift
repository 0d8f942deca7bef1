import Foundation

#if os(Linux)
    /// A C library function the system module does not declare (its header is left out, or it
    /// needs `_GNU_SOURCE`), found by name in the running process and typed as `type`, its C
    /// function type; `nil` when the process has none.
    func glibcFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }
#endif
