// Package translate is the planner: it turns statements the front end read (package frontend:
// MySQL dialect, github.com/xwb1989/sqlparser's AST) into plans the Airtable Web API can answer,
// plus what must be checked locally. It knows SQL and the formula language, not HTTP: the engine
// runs the plans of SELECT and UNION (NewQueryStatement), the root package those of writes.
//
// Values, their SQL types, comparison, three-valued logic, arithmetic, LIKE, JSON and the function
// library are package sqlvalue's, the leaf both this package and the engine use: translate
// resolves names and compiles expressions (expr.go, eval.go), and calls the library for every
// function (calls.go: the call is type-checked by the function's entry once, at planning, and
// evaluated by it per row).
//
// # Principle
//
// Pushdown never changes a result. Every WHERE condition is written as a filterByFormula that is either
// exact (it selects exactly the rows SQL would) or a superset that Plan.Keep checks again with SQL
// semantics. LIMIT becomes maxRecords only when the formula is exact and the service's order is SQL's.
// What cannot be run is refused with an error naming the construct. Values reach formulas only through
// formula.Quote, and fields only through formula.FieldRef (or {fldID} when a name cannot be written
// safely), so no argument can change a formula's structure.
//
// # Supported SQL
//
//	SELECT [DISTINCT] *, columns, expressions, aggregates [AS alias]
//	[FROM table [AS alias] [USE INDEX (`view`)] | FROM DUAL | FROM information_schema.TABLE]
//	[WHERE condition] [GROUP BY expression|alias|position, …] [HAVING condition]
//	[ORDER BY expression|alias|position [ASC|DESC], …] [LIMIT [offset,] n | LIMIT n OFFSET m]
//	INSERT INTO table (columns) VALUES (…), (…) [ON DUPLICATE KEY UPDATE c = VALUES(c), …]
//	UPDATE table [USE INDEX (`view`)] SET column = expression, … [WHERE condition]
//	DELETE FROM table [WHERE condition]
//	DELETE table FROM table USE INDEX (`view`) [WHERE condition]
//
// Parse is the front end's frontend.ParseSQL (the grammar, after the text rewrites it needs), for
// the SQL this package writes itself (information_schema, SHOW). Tables by name or tbl… id;
// columns by exact name, else a unique case-insensitive match, else fld…
// id. Placeholders: ? (Args.Positional) and :name (Args.Named, key without the colon); an argument
// the statement does not read is an error.
//
// Conditions: = <> != < <= > >=, [NOT] IN (list), [NOT] BETWEEN, [NOT] LIKE [BINARY] [ESCAPE 'c'],
// IS [NOT] NULL, IS [NOT] TRUE/FALSE, AND, OR, NOT, a number or checkbox column alone (non-zero).
// Expressions: + - * / DIV %, unary -, d ± INTERVAL n unit, CASE, CAST/CONVERT, @@variables, and the
// SQL functions of sqlvalue's table (MySQL 8's meaning, one entry each in sqlvalue/funcs_string.go,
// funcs_num.go, funcs_date.go, funcs_time.go, funcs_cast.go, funcs_control.go, funcs_json.go,
// funcs_regexp.go and funcs_system.go), plus RECORD_ID() and
// CREATED_TIME(). NOW() and CURDATE() are Args.Now, fixed per statement; DATABASE() and @@variables
// read Args.Session, which Session.Set changes (SET). A call of constants is folded into a constant
// at planning. The front end rewrites the calls the pinned grammar reads only narrowly (SUBSTRING of
// an expression, TRIM(LEADING x FROM s), POSITION(a IN b), EXTRACT(unit FROM d), CAST(x AS DOUBLE))
// into backquoted names the library knows; sqlString prints them back in their SQL form.
//
// A SELECT or UNION is planned for the engine by NewQueryStatement (query.go, union.go): each
// table's request as below, joins (join.go: hash joins and key pushdown), subqueries (subquery.go:
// IN, EXISTS, scalar, correlated), derived tables and WITH, then the local steps — aggregates
// (COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT, ANY_VALUE; aggregate.go), GROUP BY, HAVING, DISTINCT,
// ORDER BY on any expression, OFFSET — compiled with this package's rules, evaluated by the engine
// package (docs/engine.md). Its output columns are named by Args.Labels (MySQL's labels, read by
// the front end). The search of UPDATE and DELETE is a SELECT too (write_search.go, Search):
// `SELECT RECORD_ID()[, each SET expression] FROM t WHERE …` (DISTINCT t.id over a join) planned by
// NewQuery and run by the engine, so any WHERE a SELECT accepts finds the records, with the same
// pushed-down request; RETURNING and SELECT *'s columns are planned by NewQuery too. There is one
// planner: the first single-table planner (Select) is gone.
//
// Refused, each with an *UnsupportedError that names it and hints at what to do instead: an
// aggregate or window function in SET, REPLACE, INSERT IGNORE, UPDATE or DELETE with ORDER BY or
// LIMIT, locking reads. Mistakes in the query itself (an unknown column, a type that cannot be
// compared, a missing argument) are plain errors.
//
// # SQL semantics
//
// An empty cell is NULL, except an unchecked checkbox (and a boolean formula), which is false.
// Comparisons use three-valued logic. Text compares case-sensitively by code point; LIKE ignores ASCII
// case only, % and _ are wildcards and \ escapes them: '50\%' in SQL text, as in MySQL ('50\\%'
// too), or "50\%" as a bound argument, used as given. A constant compared with a column takes the
// column's type: '12' against a number is 12, '2024-01-05' against a date is that day (UTC); text
// that cannot convert is an error. Text compared with a number (a column, or a number constant
// against a text column) compares as numbers, as in MySQL: the text reads as its longest numeric
// prefix, else 0 ('1.0' = 1, 'abc' = 0); such comparisons are checked locally. A list argument
// ([]string …) against a column that is not JSON is an error (expand it into IN (?, ?, …)). Arithmetic is MySQL's: integers stay integers, / is
// real division, division or modulo by zero is NULL. ORDER BY puts NULL first ascending (SQLite).
// Times are UTC: a date is midnight UTC, as the service's formula functions see it, and YEAR … SECOND
// read UTC.
// The columns id and createdTime are the record's; a real field of that name wins, and RECORD_ID()
// and CREATED_TIME() always reach the record's own.
//
// # What is pushed, and how
//
// Each condition becomes two formulas, one for its TRUE rows and one for its FALSE rows (NOT swaps
// them), because Airtable has no NULL: a blank number reads 0 and blank text "", so {n} = 0 matches
// blanks. A comparison is guarded by NOT NULL tests, unless the blank value cannot satisfy it:
//
//	Name <> 'a'     AND({Name}!='', {Name}!='a')      text: blank reads as empty text
//	Priority = 0    AND({Priority}&''!='', {Priority}=0)   others: a 0 reads "0", a blank ""
//	Priority >= 2   {Priority}>=2                     a blank (0) cannot pass: no guard
//
// No formula written here ever evaluates to an error, on any record: the service drops a record
// whose formula is an error, and AND, OR and NOT pass errors on, so an error of one operand would
// drop rows that another operand of an OR (or a NOT) keeps. What can be an error — DATETIME_DIFF and
// YEAR…SECOND of a blank date, a division by zero — is read only behind IF (which evaluates only
// the branch it takes), where its NULL guard holds:
//
//	Due < NOW()     IF({Due}&''!='', DATETIME_DIFF({Due}, DATETIME_PARSE('…'), 'milliseconds')<0, FALSE())
//
// and a formula or rollup field is read as IF(ISERROR(probe), BLANK(), {F}), probe being {F}+0 for a
// number and YEAR({F}) for a date: #ERROR!, text or a list where a number or a date belongs reads as
// blank, as SQL reads it as NULL. A BOOL is 0 or 1 and compares with numbers as a number: Done <> 2
// is TRUE on every row, Done = 5 on none. A text constant that is not valid UTF-8 is never written
// into a formula: no text of the service equals it or matches it in LIKE.
//
// Conditions fall into three groups:
//
//   - exact: = <> < <= > >= on numbers; = and <> on text (the service's = is taken as case-sensitive,
//     the reference's recommended default); IN, NOT IN, BETWEEN; LIKE on text as
//     REGEX_MATCH(x, '^(?s:…)$') with [aA] classes for letters; IS [NOT] NULL on scalar fields;
//     checkbox conditions; dates and times as DATETIME_DIFF(a, b, 'milliseconds') op 0; + - * / on
//     numbers (a division's NULL test includes a zero divisor); LOWER, UPPER, CONCAT of text, ABS,
//     COALESCE, IFNULL, YEAR…SECOND; DATE(x) op day as a range on x (dateRanges); LIKE BINARY as
//     a REGEX_MATCH without case classes; id as
//     RECORD_ID(), createdTime as CREATED_TIME().
//   - superset (Exact false, Keep re-checks): anything on formula and rollup fields (their cells can
//     be errors or NaN, NULL here but not blank in a formula); IS NULL on arrays and objects.
//   - local only (no formula; Keep decides; Plan.LocalFunctions names them for EXPLAIN): text
//     ordering (< on text: the service's text order is not code-point order), LENGTH, SUBSTRING,
//     TRIM, ROUND (the service counts UTF-16 units, trims other white space and rounds halves up),
//     DIV, %, comparisons of JSON columns, and every other function: no formula is known to give
//     MySQL's value for it on every input.
//
// id = 'rec…' fetches that record directly (Plan.RecordIDs); ids that are not record ids match
// nothing (NoRows). Several ids are one list request with OR(RECORD_ID()='…', …).
//
// ORDER BY is sent as sort only when every key is a number or time field (number, currency,
// percent, duration, rating, autoNumber, count, date, dateTime, created/last-modified time; not a
// formula or rollup, whose NaN, Infinity and errors the service sorts where it is not documented)
// that cannot be NULL in the result — never blank, or rejected by a top-level WHERE condition such as
// Priority >= 2 — since where the service puts blanks is not documented. Otherwise the kept rows are
// sorted locally (SortLocally) and LIMIT is not pushed. ORDER BY id or createdTime is local.
//
// fields[] lists only the fields the output reads, plus those Keep and a local sort read; nil means
// every field (SELECT * of them all). COUNT(*) and SELECT id ask for one small field (a checkbox,
// else a number, …), since an empty fields[] returns every field.
//
// # Views
//
// FROM Tasks USE INDEX (`Open`) reads through the view named Open (or by its viw… id): only its
// records, in its order unless ORDER BY is given. The name must be one of the table's views.
//
// # Types
//
//	singleLineText multilineText email url phoneNumber richText singleSelect  TEXT
//	number currency (precision 0) duration (whole seconds) rating            INT64
//	autoNumber count                                                          INT64, never NULL
//	number currency (other precision) percent duration (fractions)            FLOAT64
//	checkbox                                                                  BOOL, false when absent
//	date, created/lastModifiedTime with a date result                         DATE (time.Time, UTC midnight)
//	dateTime createdTime lastModifiedTime                                     DATETIME (time.Time, UTC)
//	multipleSelects multipleRecordLinks multiple/singleCollaborator
//	multipleAttachments barcode multipleLookupValues createdBy lastModifiedBy
//	button aiText                                                             JSON (text)
//	formula rollup                                        by options.result; errors and NaN read NULL
//	unknown types, formulas without a result type          TEXT (strings as they are, others as JSON)
//
// A condition used as a value (SELECT Priority > 3, EXISTS (…), TRUE) is INT64 1, 0 or NULL, as
// MySQL's BIGINT (sqlvalue.Cond), which JSON functions write as true or false; only a checkbox is
// BOOL.
//
// Column.ScanType is the plain Go type for columns that are never NULL and the sql.Null* type
// otherwise. A fraction in a precision-0 number is output rounded (as the service shows it); WHERE
// compares the stored value.
//
// # Writes
//
// Values are written in the API's form: text as strings (numbers formatted), numbers as numbers
// (numeric text parsed), checkbox as bool (0/1 accepted), date as 2006-01-02 and dateTime as
// RFC 3339 in UTC (time.Time, or ISO text passed as written), arrays and objects from JSON text,
// json.RawMessage or []string (one plain string for a multiple select, link or collaborator list is
// a one-item list); NULL clears the field. Computed fields, id and createdTime cannot be written.
//
// INSERT … ON DUPLICATE KEY UPDATE is an upsert (performUpsert): the key is every inserted column
// that is not updated. INSERT INTO People (Name, Email) VALUES (…) ON DUPLICATE KEY UPDATE
// Email = VALUES(Email) merges on Name. Only c = VALUES(c) is accepted, the key needs 1 to 3 columns,
// of the types Airtable documents for merging: singleLineText, multilineText, number, singleSelect,
// multipleSelects, date (and dateTime, the same field in the interface) — not email, url, phone,
// currency or percent, which the service refuses.
//
// UPDATE and DELETE find their records with a Plan (Find) built like a SELECT's; SET expressions are
// evaluated per record against its current values (SET n = n + 1), with SQL NULL semantics.
// Without WHERE every record of the table (or view) is affected.
package translate
