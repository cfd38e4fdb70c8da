/// Forged secrets and tokens for the tests that check a refusal: the original with its last characters replaced.
public enum Forgery {
    /// `text` with its last `count` characters replaced by a run of "A", or of "Q" where they already are all "A", so
    /// that the forgery never equals the original (a random token ends in "A" often enough to make a test flaky).
    /// Both letters are in the base64 and base64url alphabets, and valid as the last character of 32 encoded bytes.
    public static func altered(_ text: String, last count: Int) -> String {
        let kept = text.dropLast(count)
        let run = String(repeating: "A", count: count)
        return kept + (text.hasSuffix(run) ? String(repeating: "Q", count: count) : run)
    }
}
