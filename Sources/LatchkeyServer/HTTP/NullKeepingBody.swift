import LatchkeyAPI

/// A response body whose every property is always written, `null` when it has no value — the API's
/// documents list such members as required and nullable, where a synthesized `Encodable` would leave
/// them out. The members are the stored properties, read by reflection: these are the operator's and the
/// account history's bodies, never a login's (those write themselves, `JSONWritable`).
protocol NullKeepingBody: APIResponseBody {}

extension NullKeepingBody {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        for child in Mirror(reflecting: self).children {
            guard let label = child.label else { continue }
            let key = MemberKey(label)
            let value = Mirror(reflecting: child.value)
            if value.displayStyle == .optional {
                guard let wrapped = value.children.first?.value else {
                    try container.encodeNil(forKey: key)
                    continue
                }
                try encode(wrapped, forKey: key, in: &container)
            } else {
                try encode(child.value, forKey: key, in: &container)
            }
        }
    }

    private func encode(_ value: Any, forKey key: MemberKey, in container: inout KeyedEncodingContainer<MemberKey>) throws {
        guard let encodable = value as? any Encodable else {
            throw EncodingError.invalidValue(value, .init(codingPath: container.codingPath + [key], debugDescription: "not Encodable"))
        }
        try container.encode(encodable, forKey: key)
    }
}

/// A member's name as a coding key.
struct MemberKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
