// Follows a zone's change feed page by page with Apple's CloudKit JS, unchanged, in Node:
// 1.2.0's fetchChangedRecords (records/changes) or 2.x's fetchRecordZoneChanges (changes/zone),
// with an API token on the public database. Requests go to the server given instead of
// Apple's host through the library's `services.fetch` hook.
//
// Usage: node follow_feed.js LIBRARY BASE_URL CONTAINER API_TOKEN ZONE RESULTS_LIMIT [SYNC_TOKEN]
// Prints {"pages": [[entry, …], …], "syncToken": …}: each entry a record name, or "deleted "
// and the name.
const [library, base, container, apiToken, zoneName, limit, startToken] = process.argv.slice(2);
const CloudKit = require(library);

CloudKit.configure({
  services: {
    // Only the host changes: 1.2.0's `ckSession=null` (no one signed in) goes as it is sent.
    fetch: (url, options) => fetch(String(url).replace(/^https:\/\/[^/]+/, base), options),
  },
  containers: [{ containerIdentifier: container, apiTokenAuth: { apiToken, persist: false }, environment: 'development' }],
});

const database = CloudKit.getDefaultContainer().publicCloudDatabase;
const zoneID = { zoneName };
const resultsLimit = Number(limit);

function entry(record) {
  return (record.deleted ? 'deleted ' : '') + record.recordName;
}

async function page(syncToken) {
  if (typeof database.fetchRecordZoneChanges === 'function') {
    const zone = { zoneID, resultsLimit };
    if (syncToken) zone.syncToken = syncToken;
    const response = await database.fetchRecordZoneChanges([zone]);
    if (response.hasErrors) throw new Error(JSON.stringify(response.errors));
    const answer = response.zones[0];
    return { records: answer.records, syncToken: answer.syncToken, moreComing: answer.moreComing };
  }
  const options = { resultsLimit };
  if (syncToken) options.syncToken = syncToken;
  const response = await database.fetchChangedRecords(zoneID, options);
  if (response.hasErrors) throw new Error(JSON.stringify(response.errors));
  return { records: response.records, syncToken: response.syncToken, moreComing: response.moreComing };
}

(async () => {
  const pages = [];
  let syncToken = startToken;
  for (;;) {
    const answer = await page(syncToken);
    pages.push(answer.records.map(entry));
    syncToken = answer.syncToken;
    if (!answer.moreComing || pages.length > 100) break;
  }
  process.stdout.write(JSON.stringify({ pages, syncToken }) + '\n');
  process.exit(0);
})().catch((error) => {
  process.stderr.write(String(error && (error.stack || error.message || JSON.stringify(error))) + '\n');
  process.exit(1);
});
