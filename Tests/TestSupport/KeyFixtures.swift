/// Public keys made with `openssl` for the key-parsing tests.
public enum KeyFixtures {
    /// A P-256 key, as `openssl ec -pubout` writes it.
    public static let p256 = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEspBPygqi8c6qbXZiXEHLsKC5X1cs
        fAHYwCntN9k7vOFEn1GTxCVn+ZI1hIwl2+YUjIVg0gvgGAbCrGwEGP7n3w==
        -----END PUBLIC KEY-----
        """
    /// The same key with a compressed point (`-conv_form compressed`).
    public static let p256Compressed = """
        -----BEGIN PUBLIC KEY-----
        MDkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDIgADspBPygqi8c6qbXZiXEHLsKC5X1cs
        fAHYwCntN9k7vOE=
        -----END PUBLIC KEY-----
        """
    /// The same key with the curve spelled out instead of named (`-param_enc explicit`).
    public static let p256ExplicitParameters = """
        -----BEGIN PUBLIC KEY-----
        MIIBSzCCAQMGByqGSM49AgEwgfcCAQEwLAYHKoZIzj0BAQIhAP////8AAAABAAAA
        AAAAAAAAAAAA////////////////MFsEIP////8AAAABAAAAAAAAAAAAAAAA////
        ///////////8BCBaxjXYqjqT57PrvVV2mIa8ZR0GsMxTsPY7zjw+J9JgSwMVAMSd
        NgiG5wSTamZ44ROdJreBn36QBEEEaxfR8uEsQkf4vOblY6RA8ncDfYEt6zOg9KE5
        RdiYwpZP40Li/hp/m47n60p8D54WK84zV2sxXs7LtkBoN79R9QIhAP////8AAAAA
        //////////+85vqtpxeehPO5ysL8YyVRAgEBA0IABLKQT8oKovHOqm12YlxBy7Cg
        uV9XLHwB2MAp7TfZO7zhRJ9Rk8QlZ/mSNYSMJdvmFIyFYNIL4BgGwqxsBBj+598=
        -----END PUBLIC KEY-----
        """
    public static let p384 = """
        -----BEGIN PUBLIC KEY-----
        MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAEVZT6YnCqvLdZUJNrLyGX6PXNDHWoAo0V
        499ztdG8JS7S9q6s6+iz8/ZXPSy/gQ2oEIoUnQwXGQVq8ZhNUpOJOBzRx9uZV+I2
        fJSiKAPwnS3OJvvKxN1jMAiLUyaiOYwY
        -----END PUBLIC KEY-----
        """
    public static let secp256k1 = """
        -----BEGIN PUBLIC KEY-----
        MFYwEAYHKoZIzj0CAQYFK4EEAAoDQgAEsrRF7DgYQXD0TIbewHP9LrOrfDnlgmZM
        RFCwa5yTlcuR287x7gon3ohl8yXZsk9jknETHkO/MxJNOEPDhzPmgg==
        -----END PUBLIC KEY-----
        """
    public static let ed25519 = """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VwAyEAEzZBc11Bg8aL+V3Mo8GzNyZoBmz6LB+nw3mG/r0M1qA=
        -----END PUBLIC KEY-----
        """
    public static let rsaSubjectPublicKeyInfo = """
        -----BEGIN PUBLIC KEY-----
        MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQCuP/0HRmkmsV0uSsoBuzDxI78o
        NiXODKFAs5CRWsBZVRNRnAipLFZN7NGi4RqfK+t8RScSfjIbwZeOtukLVxwhg+Ze
        4vEBVfX83EbEypZ+bPay7P7hWGWUs6cwRuWpfJA3Nxf38d8BNZ5i5X9mXVjRDfCE
        i1yB0EmrA9gdtY89oQIDAQAB
        -----END PUBLIC KEY-----
        """
    public static let rsaPKCS1 = """
        -----BEGIN RSA PUBLIC KEY-----
        MIGJAoGBAM0eGa7bcoByGs+vnsU+984kG3lx7WgjERlVryh0GfduOdjBAs/TPlj2
        +CRfX1ZSh3Ku7Ss2z0PYOR29TiO75FlY8K35i+wWvzArSC/rmrqQ7prb7mn728hK
        Bxde21uTkTtCFHVvI/GQGoXrXrEXO+IhNVc8m5sBkslOwKG6sh1TAgMBAAE=
        -----END RSA PUBLIC KEY-----
        """
}
