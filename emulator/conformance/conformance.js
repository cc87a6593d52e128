// Conformance: drive the official airtable.js client (pinned at 0.12.2) against cmd/airtable-emulator
// and fail on any mismatch with what airtable.js expects of the real service.
//
// It builds the emulator once, starts it twice (default settings, and legacy 404s with a low rate
// limit), runs every check, and always stops both processes. Exit status: 0 when every check passed.
'use strict';

const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const readline = require('readline');
const Airtable = require('airtable');

const repoRoot = path.resolve(__dirname, '..', '..');
const fixture = path.join(__dirname, 'fixture.json');
const BASE = 'appCONF0000000001';
const TOKEN = 'patCONF.secret';

const children = [];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'airsql-conformance-'));

function killAll() {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      try { c.kill('SIGKILL'); } catch (e) { /* already gone */ }
    }
  }
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => { killAll(); process.exit(130); });
}

function buildEmulator() {
  const bin = path.join(tmp, 'airtable-emulator');
  execFileSync('go', ['build', '-o', bin, './cmd/airtable-emulator'], { cwd: repoRoot, stdio: 'inherit' });
  return bin;
}

// start runs the emulator and resolves with its URL once it prints "listening on http://HOST:PORT".
function start(bin, extraArgs) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['-addr', '127.0.0.1:0', '-fixture', fixture, ...extraArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    const timer = setTimeout(() => reject(new Error('the emulator did not print its listening line within 60 s')), 60000);
    child.on('exit', (code, sig) => { clearTimeout(timer); reject(new Error(`the emulator exited early (code ${code}, signal ${sig})`)); });
    const lines = readline.createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      clearTimeout(timer);
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (!m) {
        reject(new Error(`unexpected first line from the emulator: ${JSON.stringify(line)}`));
        return;
      }
      resolve(m[1]);
    });
  });
}

const failures = [];
let passed = 0;

function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failures.push(name);
    console.log(`FAIL ${name}${detail === undefined ? '' : ': ' + detail}`);
  }
}

function same(name, got, want) {
  const g = JSON.stringify(got);
  const w = JSON.stringify(want);
  check(name, g === w, `got ${g}, want ${w}`);
}

// expectError runs fn and checks the AirtableError it must fail with.
async function expectError(name, fn, want) {
  try {
    await fn();
    check(name, false, 'no error');
  } catch (err) {
    const got = { error: err.error, statusCode: err.statusCode };
    if (want.message !== undefined) got.message = err.message;
    same(name, got, want);
  }
}

function names(records) { return records.map((r) => r.get('Name')); }

async function mainChecks(url, requestLog) {
  const airtable = new Airtable({ apiKey: TOKEN, endpointUrl: url, noRetryIfRateLimited: true });
  const base = airtable.base(BASE);
  const tasks = base('Tasks');

  // select: filterByFormula, sort, fields
  let recs = await tasks.select({ filterByFormula: '{Priority} >= 4', sort: [{ field: 'Priority', direction: 'desc' }, { field: 'Name' }], fields: ['Name', 'Priority'] }).all();
  check('select filterByFormula + sort', recs.length > 0 && recs.every((r, i) => i === 0 || recs[i - 1].get('Priority') >= r.get('Priority')), names(recs).join(','));
  check('select fields[] narrows the record', recs.every((r) => Object.keys(r.fields).every((k) => k === 'Name' || k === 'Priority')), JSON.stringify(recs[0] && recs[0].fields));
  same('select filterByFormula count', recs.length, 10);

  // view: its filter and sort; hidden fields still returned
  recs = await tasks.select({ view: 'Open' }).all();
  check('view filter', recs.every((r) => !r.get('Done')) && recs.length === 16, `${recs.length} records`);
  check('view sort', recs.every((r, i) => i === 0 || recs[i - 1].get('Priority') >= r.get('Priority')));

  // eachPage with pageSize and maxRecords across pages: pages of 10, 10, 5
  const sizes = [];
  await tasks.select({ pageSize: 10, maxRecords: 25 }).eachPage((page, next) => { sizes.push(page.length); next(); });
  same('eachPage pageSize 10, maxRecords 25', sizes, [10, 10, 5]);
  const sizes2 = [];
  await tasks.select({ pageSize: 7, maxRecords: 12 }).eachPage((page, next) => { sizes2.push(page.length); next(); });
  same('eachPage pageSize 7, maxRecords 12', sizes2, [7, 5]);
  const first = await tasks.select({ pageSize: 3 }).firstPage();
  same('firstPage in creation order', names(first), ['Task 01', 'Task 02', 'Task 03']);

  // A formula too long for a URL: airtable.js switches to POST .../listRecords
  const long = `AND({Priority} >= 4, {Name} != '${'x'.repeat(16000)}')`;
  recs = await tasks.select({ filterByFormula: long, pageSize: 4, sort: [{ field: 'Name', direction: 'desc' }], timeZone: 'UTC', userLocale: 'en-us' }).all();
  same('long formula over POST listRecords, paged', recs.length, 10);
  check('long formula sorted desc', recs.every((r, i) => i === 0 || recs[i - 1].get('Name') > r.get('Name')));
  const log = fs.readFileSync(requestLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  check('POST listRecords was used', log.some((e) => e.method === 'POST' && e.path.endsWith('/Tasks/listRecords') && e.status === 200));

  // cellFormat string and returnFieldsByFieldId
  recs = await tasks.select({ maxRecords: 1, cellFormat: 'string', timeZone: 'America/Chicago', userLocale: 'en-us' }).all();
  same('cellFormat string', typeof recs[0].get('Priority'), 'string');
  recs = await tasks.select({ maxRecords: 1, returnFieldsByFieldId: true }).all();
  same('returnFieldsByFieldId', recs[0].fields.fldCONFNAME000001, 'Task 01');

  // find
  const one = await tasks.find('recCONF0000000002');
  same('find', [one.id, one.get('Name'), one.get('Score')], ['recCONF0000000002', 'Task 02', one.get('Priority') * 2]);

  // Record comments: airtable.js has no method for them, so through makeRequest (its door to any
  // route of a base); their count through select's recordMetadata, on GET and POST listRecords.
  const commentsPath = '/Tasks/recCONF0000000003/comments';
  const c1 = await base.makeRequest({ method: 'POST', path: commentsPath, body: { text: 'first' } });
  const c2 = await base.makeRequest({ method: 'POST', path: commentsPath, body: { text: 'second', parentCommentId: c1.body.id } });
  same('create comment', [c1.statusCode, c1.body.text, c2.body.parentCommentId], [200, 'first', c1.body.id]);
  const listed = await base.makeRequest({ path: commentsPath, qs: { pageSize: 1 } });
  same('list comments, newest first, paged', [listed.body.comments.map((c) => c.text), typeof listed.body.offset], [['second'], 'string']);
  const edited = await base.makeRequest({ method: 'PATCH', path: `${commentsPath}/${c1.body.id}`, body: { text: 'first, edited' } });
  same('update comment', [edited.body.text, typeof edited.body.lastUpdatedTime], ['first, edited', 'string']);
  const counted = await tasks.select({ recordMetadata: ['commentCount'], filterByFormula: "RECORD_ID() = 'recCONF0000000003'" }).all();
  same('recordMetadata commentCount (GET)', counted.map((r) => r.commentCount), [2]);
  const countedPost = await tasks.select({ recordMetadata: ['commentCount'], filterByFormula: `AND(RECORD_ID() = 'recCONF0000000003', {Name} != '${'x'.repeat(16000)}')` }).all();
  same('recordMetadata commentCount (POST listRecords)', countedPost.map((r) => r.commentCount), [2]);
  const gone = await base.makeRequest({ method: 'DELETE', path: `${commentsPath}/${c2.body.id}` });
  same('delete comment', gone.body, { deleted: true, id: c2.body.id });
  const plain = await tasks.select({ maxRecords: 1 }).firstPage();
  same('no commentCount unless asked', plain[0].commentCount, undefined);

  // create / update / replace / destroy, in batches of 10 and singly
  const scratch = base('Scratch');
  const batch = Array.from({ length: 10 }, (_, i) => ({ fields: { Name: `s${i}`, Count: i } }));
  const created = await scratch.create(batch);
  same('create batch of 10', created.map((r) => r.get('Count')), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const single = await scratch.create({ Name: 'single' });
  same('create single', single.get('Name'), 'single');
  const updated = await scratch.update(created.map((r) => ({ id: r.id, fields: { Count: r.get('Count') + 100 } })));
  same('update batch keeps other fields', updated.map((r) => [r.get('Name'), r.get('Count')])[0], ['s0', 100]);
  const replaced = await scratch.replace([{ id: created[0].id, fields: { Count: 7 } }]);
  same('replace clears omitted fields', replaced[0].fields, { Count: 7 });
  const upd1 = await scratch.update(single.id, { Count: 5 });
  same('update single', [upd1.get('Name'), upd1.get('Count')], ['single', 5]);
  const typecast = await scratch.create([{ fields: { Name: 'typecast', Count: '12', Kind: 'brand-new' } }], { typecast: true });
  same('typecast converts and adds options', [typecast[0].get('Count'), typecast[0].get('Kind')], [12, 'brand-new']);
  const destroyed = await scratch.destroy(created.map((r) => r.id));
  same('destroy batch of 10', destroyed.length, 10);
  const d1 = await scratch.destroy(single.id);
  same('destroy single', d1.id, single.id);
  const left = await scratch.select().all();
  same('table after destroy', names(left), ['typecast']);

  // errors
  await expectError('422 invalid formula', () => tasks.select({ filterByFormula: '{Name} = ' }).all(),
    { error: 'INVALID_FILTER_BY_FORMULA', statusCode: 422 });
  await expectError('422 unknown field name', () => scratch.create({ Nope: 1 }),
    { error: 'UNKNOWN_FIELD_NAME', statusCode: 422, message: 'Unknown field name: "Nope"' });
  await expectError('422 more than 10 records', () => scratch.create(Array.from({ length: 11 }, () => ({ fields: {} }))),
    { error: 'INVALID_RECORDS', statusCode: 422, message: 'A maximum of 10 records can be created per request but you have provided 11.' });
  await expectError('422 select option without typecast', () => scratch.create({ Kind: 'zzz' }),
    { error: 'INVALID_MULTIPLE_CHOICE_OPTIONS', statusCode: 422 });
  await expectError('422 computed field', () => tasks.create({ Score: 1 }),
    { error: 'INVALID_VALUE_FOR_COLUMN', statusCode: 422, message: 'Field "Score" cannot accept a value because the field is computed' });
  await expectError('401 wrong token', () => new Airtable({ apiKey: 'patWRONG.secret', endpointUrl: url }).base(BASE)('Tasks').find('recCONF0000000001'),
    { error: 'AUTHENTICATION_REQUIRED', statusCode: 401 });
  await expectError('403 unknown table (today\'s service)', () => base('Nope').select().firstPage(),
    { error: 'NOT_AUTHORIZED', statusCode: 403 });
  await expectError('404 unknown route', () => base.makeRequest({ method: 'GET', path: '/Tasks/recCONF0000000001/nonsense' }),
    { error: 'NOT_FOUND', statusCode: 404 });
}

async function legacyAndRateChecks(url) {
  const base = new Airtable({ apiKey: TOKEN, endpointUrl: url, noRetryIfRateLimited: true }).base(BASE);
  await expectError('404 unknown record (legacy mode)', () => base('Tasks').find('recNOPE0000000001'),
    { error: 'NOT_FOUND', statusCode: 404, message: 'Record not found' });
  await expectError('404 unknown table (legacy mode)', () => base('Unknown Table').select().firstPage(),
    { error: 'NOT_FOUND', statusCode: 404, message: `Could not find table Unknown Table in application ${BASE}` });

  // 429: this emulator allows 3 requests per second per base, then refuses for 1 s.
  let limited = null;
  for (let i = 0; i < 6 && !limited; i++) {
    try {
      await base('Tasks').find('recCONF0000000001');
    } catch (err) {
      limited = err;
    }
  }
  same('429 without retry', limited && { error: limited.error, statusCode: limited.statusCode }, { error: 'TOO_MANY_REQUESTS', statusCode: 429 });

  // With retries (airtable.js's default) the same burst succeeds once the penalty is over.
  const retrying = new Airtable({ apiKey: TOKEN, endpointUrl: url }).base(BASE);
  const started = Date.now();
  const got = await Promise.all(Array.from({ length: 5 }, () => retrying('Tasks').find('recCONF0000000003')));
  check('429 retried by airtable.js until it succeeds', got.every((r) => r.get('Name') === 'Task 03'), `${got.length} answers`);
  console.log(`     (the retried burst took ${Date.now() - started} ms)`);
}

async function main() {
  const bin = buildEmulator();
  const requestLog = path.join(tmp, 'requests.jsonl');
  const url = await start(bin, ['-rate', '0', '-request-log', requestLog]);
  const legacyURL = await start(bin, ['-rate', '3', '-penalty', '1s', '-not-found', 'legacy']);
  await mainChecks(url, requestLog);
  await legacyAndRateChecks(legacyURL);
}

main()
  .catch((err) => {
    failures.push('run');
    console.log(`FAIL the run stopped: ${err && err.stack ? err.stack : err}`);
  })
  .finally(() => {
    killAll();
    fs.rmSync(tmp, { recursive: true, force: true });
    console.log(`\n${passed} passed, ${failures.length} failed`);
    process.exit(failures.length === 0 ? 0 : 1);
  });
