import ArgumentParser

/// Reads a password from standard input (one line), so it never appears in the process list
/// or the shell's history.
/// - Parameter command: the command, named in the error when nothing was given.
func readPassword(for command: String) throws -> String {
    guard let line = readLine(strippingNewline: true), !line.isEmpty else {
        throw ValidationError("Give the password on standard input, for example: printf '%s\\n' 'a long passphrase' | cumulus \(command) …")
    }
    return line
}
