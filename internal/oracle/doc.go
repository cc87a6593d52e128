// Package oracle makes MariaDB the judge of the driver's answers: a server of the test binary's
// own, a generated fixture loaded into both the emulator and MariaDB, a seeded query generator,
// and the comparison of answers. TestOracle in the root package runs it; translate's tests may use
// it the same way.
//
// # The server
//
// Start(t) runs mariadb-install-db into a new directory under the system's temp dir, then
// mariadbd with --no-defaults on a unix socket in that directory (--skip-networking: nothing
// listens on the network), character_set_server=utf8mb4, collation_server=utf8mb4_bin,
// time_zone '+00:00' and SQLMode (MySQL 8's default). It waits for the server's "ready for
// connections" line, not for a timer. The server runs in its own process group and, on Linux, dies
// with the test binary (PDEATHSIG); t.Cleanup stops the group (SIGTERM, then SIGKILL after 10 s)
// and removes the directory, also when the test fails. It takes about 2 s, once per test binary.
// Without mariadbd the test is skipped with the one line InstallHint; under CI=true that is a
// failure.
//
// Every connection sets collation_connection to TextCollation (utf8mb4_nopad_bin): the driver
// compares text by code point with trailing spaces significant, as MySQL 8's utf8mb4_0900_bin;
// MariaDB's utf8mb4_bin is PAD SPACE ('a' = 'a '). Text columns use the same collation.
//
// # The fixture
//
// NewFixture(seed) generates three tables, People (120 records), Items (300) and Projects (30),
// linked (Items.Owner and Projects.Lead to People, Items.Project to Projects, People.Manager to
// People itself: chains of two links and a table linked with itself), with text (quotes,
// backslashes, braces, % and _, ASCII and non-ASCII case pairs, emoji, spaces at the ends, empty
// text), numbers of both precisions (zeros, negatives, 2^31 edges, ±3e9, ±1e12), percent, currency,
// rating, autoNumber, checkbox, date and dateTime (day, month and year boundaries, leap day,
// milliseconds), single and multiple selects, the links and a formula ({Price}/{Qty}, with
// its errors and infinities), blanks everywhere. Fixture.Load creates one MariaDB table per
// Airtable table — id, the fields in schema order, createdTime; TEXT, BIGINT, DOUBLE, BOOL, DATE,
// DATETIME(3) or JSON by the driver's type mapping; a blank is NULL, an unchecked checkbox false —
// and one junction table Table__Field(id, linked_id) per link field. The values are read back from
// the emulator, so computed cells are the emulator's and what Airtable does not store (empty text)
// is NULL on both sides.
//
// # The generator
//
// Generator.Query(seed) writes one SELECT for the driver and the same query for MariaDB
// (Query.Driver, Query.MariaDB, bound Query.Args), adapted for each deliberate difference of the
// README's table; the same seed always gives the same query. It uses what the driver runs today:
// *, columns, expressions with aliases, COUNT(*) and COUNT(column) alone; WHERE with = <> != < <=
// > >=, [NOT] IN (with columns and NULL among the items), [NOT] BETWEEN, [NOT] LIKE with escapes
// and ESCAPE, IS [NOT] NULL, IS [NOT] TRUE/FALSE, AND, OR, NOT, a number or checkbox alone;
// + - * / DIV %, unary minus, LOWER/LCASE, UPPER/UCASE, LENGTH, CHAR_LENGTH, CHARACTER_LENGTH,
// CONCAT, TRIM, LTRIM, RTRIM, SUBSTRING/SUBSTR/MID, ABS, ROUND, COALESCE, IFNULL, YEAR … SECOND,
// NOW/CURRENT_TIMESTAMP, RECORD_ID(), CREATED_TIME(); literals inline or bound; ORDER BY columns
// (by name, qualified or by position) ending with id, the tie-breaker that makes the order
// unique, so that Query.Ordered can be compared row by row; LIMIT n, LIMIT 0, n, LIMIT n OFFSET 0,
// LIMIT ?.
//
// Query.Tags name constructs that tests recognise in their list of pending fixes (Tag…).
//
// # Switching constructs on (the extension point)
//
// Generator.Constructs lists the constructs beyond that core, each with a Mode:
//
//   - Refused: a few queries carry it (Weight per thousand) and the driver must refuse each with
//     an error whose construct names it (Query.Refusal); MariaDB must run the same SQL, which
//     proves the query is valid MySQL rather than refused for being malformed.
//   - Run: the queries that carry it are compared with MariaDB like the others.
//
// DefaultConstructs has OFFSET, GROUP BY (COUNT, SUM/AVG of integers, MIN/MAX, COUNT(DISTINCT),
// GROUP_CONCAT with DISTINCT/ORDER BY/SEPARATOR, HAVING; ordered by keys and aggregates only, as
// ONLY_FULL_GROUP_BY demands in MySQL 8), DISTINCT (ordered by its selected items only), CASE,
// CAST (AS CHAR, SIGNED, DATE, DATETIME), date functions (DATEDIFF, TIMESTAMPDIFF, DATE_FORMAT,
// DATE_ADD/DATE_SUB with INTERVAL), ORDER BY on an expression and an aggregate other than COUNT,
// which Run; and the joins and subqueries of issue 10 (gen_join.go), which Run: joins of two
// and three tables through links (MariaDB joins through the junction tables; a link condition in
// WHERE or a subquery is JSON_CONTAINS(link, JSON_QUOTE(id)) there), self-joins with aliases,
// joins on ordinary fields (= and <, <>, … across tables), RIGHT JOIN of two tables, CROSS JOIN
// and comma joins with WHERE, USING, GROUP BY over a join, derived tables and WITH (alone or
// joined), [NOT] EXISTS correlated by one equality, [NOT] IN (SELECT …) over nullable columns and
// links, scalar subqueries in the select list and WHERE, UNION [ALL]; and the functions and grammar
// of issue 22 (gen_funcs.go), which Run over expressions of every column kind but JSON and NULL:
// SUBSTRING_INDEX, FIELD, ELT, FIND_IN_SET, [NOT] REGEXP/RLIKE, REGEXP_REPLACE/SUBSTR/INSTR with
// patterns that mean the same in ICU, PCRE and RE2, <=>; MAKEDATE, TIMESTAMP, SEC_TO_TIME,
// TIME_TO_SEC, TIMEDIFF, ADDTIME/SUBTIME, TIME_FORMAT, MAKETIME, STR_TO_DATE of week dates
// (Metabase's bucket too), typed literals and INTERVAL arithmetic; STD/VAR/BIT aggregates; hex, bit
// and typed literals, unary minus on text, SELECT ALL and non-reserved keywords as aliases; GROUP
// BY … WITH ROLLUP (unordered: MariaDB refuses ROLLUP with ORDER BY); chains of UNION, INTERSECT
// and EXCEPT [ALL|DISTINCT] (gen_setops.go: MariaDB's side in parentheses, in a derived table);
// the JSON functions over list cells, JSON text and NULL with MySQL's paths, in the select list,
// WHERE, GROUP BY and ORDER BY (gen_json.go: MariaDB's side written around its JSON printing, its
// [last] and the functions it lacks).
// Tag TagMySQLGrammar marks the
// queries the pinned parser reads only after the driver's rewrites. Refused today (each must
// fail naming itself): RIGHT JOIN after other joins, NATURAL joins, a correlated subquery other
// than EXISTS by one equality. A construct with rebuild writes the query anew around its FROM;
// after one, the others of that kind are left out. A Refused construct is applied after the
// others and resets what it cannot keep (grouping, DISTINCT, OFFSET). Query.Constructs names what a query carries. When a helper teaches the
// driver one of them, its entry goes to Run (and its add function may grow more variety); a new
// construct (window functions, more MySQL functions, joins on link fields …) is a new entry whose add
// function changes the query's parts. An add function must keep the query valid MySQL with one
// answer: ORDER BY ending with a unique key when rows are ordered or limited, GROUP BY keys
// selected, bound values through parts.bind. An expression whose MySQL meaning differs on purpose
// from the driver's is written twice (e.d, e.m), the MariaDB side adapted, and the difference goes
// into the README's table.
//
// # Comparing
//
// MariaDB's own artefacts, where it answers otherwise than MySQL 8, are adapted on its side or
// accepted by TestOracle: a bound text argument is written (? COLLATE utf8mb4_nopad_bin) (MariaDB
// gives it the handshake's utf8mb4_general_ci); a text expression with a DOUBLE in it is CAST to
// CHAR(1000) under DISTINCT (MariaDB's temporary column cut the number's full text); GROUP BY id
// with other columns selected is MariaDB's error 1055, MySQL 8's answer (the driver's two plans
// must then agree with each other).
//
// Answer runs a query and writes each cell in a canonical form (Canonical): NULL; numbers with
// booleans as 0 and 1, integers below 2^53 exactly, other numbers to 12 significant digits (the
// driver's FLOAT64 against MySQL's DOUBLE or DECIMAL); times in UTC to the millisecond; text as
// it is. Diff compares two answers in order when the query's ORDER BY fixes it, else as
// multisets; an error must meet an error.
package oracle
