/// A setting that cannot be used, in one sentence an operator can act on: thrown where a value is
/// checked, by every layer (a database URL in `LatchkeyDatabase`, a certificate in `LatchkeyTransport`, the
/// rest in `LatchkeyServer`, whose `InvalidSetting` is this type), and printed by
/// `latchkey serve` as its reason to stop with exit status 2.
public struct InvalidSetting: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}
