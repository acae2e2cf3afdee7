import ApplianceProtocol
import GRDB

/// A recording object is a row of table `recordings`: columns are the snake_case forms of its fields, dates are
/// integer milliseconds since 1970 (exact sort keys, compact, easy to query).
extension Recording: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "recordings"
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .millisecondsSince1970 }
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .millisecondsSince1970 }
}

extension Recording.State: DatabaseValueConvertible {}
extension Recording.BackupState: DatabaseValueConvertible {}
