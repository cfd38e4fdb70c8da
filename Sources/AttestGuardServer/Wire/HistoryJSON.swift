public import AttestGuardEngine
public import Foundation

/// The JSON of the history routes, for the CLI's `--json`: `attestguard keys history` and `attestguard decisions`
/// print what `GET /v1/apps/{appId}/keys/{keyId}/history` and `GET /v1/apps/{appId}/decisions` answer.
public enum HistoryJSON {
    public static func encode(_ history: KeyHistory) throws -> Data {
        try JSONResponse.encoder.encode(KeyHistoryBody(history))
    }

    public static func encode(_ page: DecisionPage) throws -> Data {
        try JSONResponse.encoder.encode(DecisionPageBody(page))
    }
}
