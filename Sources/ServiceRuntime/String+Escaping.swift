extension String {
    /// Appends `text` scalar by scalar, writing what `escape` gives where it gives something:
    /// the one loop behind the HTML, JSON and log escapers, which differ only in their tables.
    mutating func append(_ text: String, escaping escape: (Unicode.Scalar) -> String?) {
        for scalar in text.unicodeScalars {
            if let escaped = escape(scalar) {
                self += escaped
            } else {
                unicodeScalars.append(scalar)
            }
        }
    }
}
