/// The version `cumulus --version` prints and `/healthz` reports.
enum CumulusVersion {
    static let current = "0.1.0"
}
