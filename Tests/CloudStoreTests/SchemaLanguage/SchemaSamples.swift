/// Schema texts the schema-language tests share.
enum SchemaSamples {
    /// The sample schema of Apple's "Integrating a Text-Based Schema into Your Workflow",
    /// as printed there (including the stray spaces after two of its commas).
    static let apple = """
        DEFINE SCHEMA
            CREATE ROLE DeptManager;

            RECORD TYPE Department (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___recordID" REFERENCE QUERYABLE,
                name STRING,
                address STRING,
                phone LIST<STRING>,
                employees LIST<REFERENCE>,
                GRANT WRITE TO "_creator", 
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world",
                GRANT WRITE, CREATE, READ TO DeptManager
            );

            RECORD TYPE Employee (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___recordID" REFERENCE QUERYABLE,
                name STRING,
                address STRING,
                hiredate TIMESTAMP,
                salary INT64,
                GRANT WRITE TO "_creator", 
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );
        """

    /// Apple's sample as `export` writes it: all system fields, aligned types, one blank line
    /// between statements.
    static let appleExported = """
        DEFINE SCHEMA

            CREATE ROLE DeptManager;

            RECORD TYPE Department (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___createdBy"  REFERENCE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE QUERYABLE,
                name            STRING,
                address         STRING,
                phone           LIST<STRING>,
                employees       LIST<REFERENCE>,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world",
                GRANT WRITE, CREATE, READ TO DeptManager
            );

            RECORD TYPE Employee (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___createdBy"  REFERENCE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE QUERYABLE,
                name            STRING,
                address         STRING,
                hiredate        TIMESTAMP,
                salary          INT64,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );

        """

    /// Every type, option, list, encryption, number preference, quoting case and grant form,
    /// with keywords in mixed case and all three comment styles.
    static let everything = """
        define schema
            -- roles may be quoted, and may even be named like keywords
            create role Editor;
            CREATE ROLE "test role";
            Create Role "grant";

            /* every primitive type,
               then encryption, numbers and lists */
            RECORD TYPE Everything (
                anAsset       ASSET,
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                someBytes     BYTES,
                aDouble       DOUBLE QUERYABLE SORTABLE,
                anInt         INT64 SORTABLE QUERYABLE,
                place         LOCATION QUERYABLE,
                parent        REFERENCE QUERYABLE,
                title         STRING SORTABLE SEARCHABLE QUERYABLE, // listed out of order
                stamp         TIMESTAMP SORTABLE,
                secretBytes   ENCRYPTED BYTES,
                secret        ENCRYPTED STRING,
                secretDouble  encrypted double,
                secretInt     ENCRYPTED INT64,
                secretPlace   ENCRYPTED LOCATION,
                secretStamp   ENCRYPTED TIMESTAMP,
                loose         NUMBER,
                whole         NUMBER PREFERRED AS INT64 QUERYABLE,
                fraction      number preferred as double SORTABLE,
                tags          LIST<STRING> QUERYABLE,
                images        LIST<ASSET>,
                counts        list<int64> QUERYABLE,
                secrets       LIST<ENCRYPTED STRING>,
                measures      LIST<NUMBER PREFERRED AS DOUBLE>,
                type          STRING,
                "queryable"   INT64,
                "cloudkit.title" STRING,
                "with space"  STRING,
                "_private"    BYTES,
                "___etag"     STRING SEARCHABLE,
                GRANT READ TO "_world",
                GRANT WRITE, CREATE TO "_creator",
                GRANT READ, WRITE TO Editor,
                GRANT READ TO "test role",
                grant create to "grant"
            );

            RECORD TYPE "cloudkit.share" (
                "cloudkit.title" STRING,
                GRANT READ TO "_icloud"
            );

            RECORD TYPE Empty ();
        """

    /// A schema in the shape `cktool export-schema` prints (types aligned one space past the
    /// longest name, indexes in QUERYABLE SEARCHABLE SORTABLE order, grants last).
    static let cktoolShaped = """
        DEFINE SCHEMA

            CREATE ROLE Reviewer;

            RECORD TYPE Article (
                "___createTime"   TIMESTAMP SORTABLE,
                "___createdBy"    REFERENCE,
                "___etag"         STRING,
                "___modTime"      TIMESTAMP QUERYABLE SORTABLE,
                "___modifiedBy"   REFERENCE,
                "___recordID"     REFERENCE QUERYABLE,
                body              STRING SEARCHABLE,
                headline          STRING QUERYABLE SEARCHABLE SORTABLE,
                publishedAt       TIMESTAMP QUERYABLE SORTABLE,
                readingTimeMinute INT64 QUERYABLE SORTABLE,
                tags              LIST<STRING> QUERYABLE,
                GRANT WRITE TO "_creator",
                GRANT READ, CREATE, WRITE TO "_icloud",
                GRANT READ TO "_world",
                GRANT READ, WRITE TO Reviewer
            );

            RECORD TYPE Users (
                "___createTime" TIMESTAMP,
                "___createdBy"  REFERENCE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE,
                roles           LIST<INT64>,
                GRANT WRITE TO "_creator",
                GRANT READ TO "_world"
            );

        """
}
