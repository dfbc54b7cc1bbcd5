/// The messages and enums one file declares, by their dotted path inside the package, so a
/// field's type name resolves as protoc resolves it: innermost enclosing message first.
struct ProtoTypeTable {
    enum Declaration {
        case message
        /// An enum, with the Swift name of its 0 value: the field's default.
        case enumeration(zero: String)
    }

    private var declarations: [String: Declaration] = [:]

    init(_ file: ProtoFile) {
        add(messages: file.messages, enums: file.enums, scope: [])
    }

    private mutating func add(messages: [ProtoMessage], enums: [ProtoEnum], scope: [String]) {
        for declared in enums {
            let zero = SwiftNames.enumValue(declared.values[0].name, of: declared.name)
            declarations[(scope + [declared.name]).joined(separator: ".")] = .enumeration(zero: zero)
        }
        for message in messages {
            declarations[(scope + [message.name]).joined(separator: ".")] = .message
            add(messages: message.messages, enums: message.enums, scope: scope + [message.name])
        }
    }

    /// The declaration `name` refers to from inside the messages `scope`, and its path in the
    /// package (which is its Swift path inside the namespace).
    func resolve(_ name: String, from scope: [String]) -> (path: String, declaration: Declaration)? {
        for depth in stride(from: scope.count, through: 0, by: -1) {
            let path = (scope.prefix(depth) + [name]).joined(separator: ".")
            if let declaration = declarations[path] {
                return (path, declaration)
            }
        }
        return nil
    }
}
