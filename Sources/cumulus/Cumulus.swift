import ArgumentParser

/// The `cumulus` command: a self-hosted CloudKit server and the tools to run it.
@main
struct Cumulus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cumulus",
        abstract: "A self-hosted CloudKit: storage and sync, CloudKit Web Services, and an admin console.",
        version: CumulusVersion.current,
        subcommands: [
            ServeCommand.self,
            MigrateCommand.self,
            MigrateStoreCommand.self,
            BackupCommand.self,
            RestoreCommand.self,
            BackupsCommand.self,
            ContainersCommand.self,
            ExportSchemaCommand.self,
            ValidateSchemaCommand.self,
            ImportSchemaCommand.self,
            DeleteSchemaCommand.self,
            RecordTypesCommand.self,
            DeployCommand.self,
            DeploymentsCommand.self,
            ResetCommand.self,
            SeedsCommand.self,
            PersonalFieldsCommand.self,
            CopyToDevelopmentCommand.self,
            LimitsCommand.self,
            UsageCommand.self,
            LogsCommand.self,
            SubscriptionsCommand.self,
            PushTokensCommand.self,
            NotificationsCommand.self,
            SharesCommand.self,
            ChangesCommand.self,
            ZonesCommand.self,
            RecordsCommand.self,
            TrashCommand.self,
            HistoryCommand.self,
            RestorePointCommand.self,
            SecurityCommand.self,
            TokensCommand.self,
            KeysCommand.self,
            UsersCommand.self,
            OperatorsCommand.self,
            AuditCommand.self,
            SignInAttacksCommand.self,
            SecretCommand.self,
        ]
    )
}
