import Foundation

/// Stops the run when a property a target asserts does not hold: the message goes to stderr and the
/// process aborts, which libFuzzer reports as a crash and saves the input for — so a logic bug is
/// found the same way as a memory error.
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("fuzz property failed (\(file):\(line)): \(message())\n".utf8))
    abort()
}
