package airsql

import (
	"errors"

	"github.com/airsql/airsql/sysvar"
)

// MySQL error numbers the driver's errors answer to (MySQL 8 manual, "Server Error Message
// Reference"), and their SQLSTATE.
const (
	erBadDB              = 1049 // ER_BAD_DB_ERROR, 42000
	erTableExists        = 1050 // ER_TABLE_EXISTS_ERROR, 42S01
	erBadField           = 1054 // ER_BAD_FIELD_ERROR, 42S22
	erDupFieldName       = 1060 // ER_DUP_FIELDNAME, 42S21
	erParse              = 1064 // ER_PARSE_ERROR, 42000
	erUnknown            = 1105 // ER_UNKNOWN_ERROR, HY000
	erNoSuchTable        = 1146 // ER_NO_SUCH_TABLE, 42S02
	erWrongArguments     = 1210 // ER_WRONG_ARGUMENTS, HY000
	erNotSupportedYet    = 1235 // ER_NOT_SUPPORTED_YET, 42000
	erSubqueryNo1Row     = 1242 // ER_SUBQUERY_NO_1_ROW, 21000
	erUnknownStmtHandler = 1243 // ER_UNKNOWN_STMT_HANDLER, HY000
	erDataOutOfRange     = 1690 // ER_DATA_OUT_OF_RANGE, 22003
)

// MySQLErrorCode is the MySQL error number and SQLSTATE a MySQL server answers for err (as
// go-mysql-server's CastSQLError does): decided by the type of the driver's error found with
// errors.As, never by its wording; 1105 (ER_UNKNOWN_ERROR), HY000 for an error of no such type.
// `airsql serve` answers its clients with it; it is the one place that maps the driver's errors
// to MySQL's.
func MySQLErrorCode(err error) (code uint16, sqlState string) {
	var (
		noTable *NoTableError
		table   *UnknownTableError
		exists  *ExistsError
		unsup   *UnsupportedError
		syntax  *SyntaxError
		column  *UnknownColumnError
		handler *UnknownPreparedError
		args    *PreparedArgumentsError
		subq    *SubqueryError
		rangeEr *OutOfRangeError
		window  *WindowError
		jsonErr *JSONError
		badDB   *UnknownDatabaseError
		jtErr   *JSONTableError
	)
	switch {
	case errors.As(err, &badDB):
		return erBadDB, "42000"
	case errors.As(err, &jsonErr): // MySQL's own number: 3141, 3143, …
		return uint16(jsonErr.Code), jsonSQLState[jsonErr.Code]
	case errors.As(err, &jtErr): // MySQL's own number: 3667
		return uint16(jtErr.Code), "42000"
	case errors.As(err, &window): // MySQL's own number: 3593, 3579, …
		if window.Code == erParse || window.Code == erNotSupportedYet {
			return uint16(window.Code), "42000"
		}
		return uint16(window.Code), "HY000"
	case errors.As(err, &noTable), errors.As(err, &table):
		return erNoSuchTable, "42S02"
	case errors.As(err, &exists) && exists.Kind == "column":
		return erDupFieldName, "42S21"
	case errors.As(err, &exists):
		return erTableExists, "42S01"
	case errors.As(err, &unsup):
		return erNotSupportedYet, "42000"
	case errors.As(err, &syntax):
		return erParse, "42000"
	case errors.As(err, &column):
		return erBadField, "42S22"
	case errors.As(err, &handler):
		return erUnknownStmtHandler, "HY000"
	case errors.As(err, &args):
		return erWrongArguments, "HY000"
	case errors.As(err, &subq):
		return erSubqueryNo1Row, "21000"
	case errors.As(err, &rangeEr):
		return erDataOutOfRange, "22003"
	}
	return erUnknown, "HY000"
}

// jsonSQLState is the SQLSTATE of each error number a JSONError carries.
var jsonSQLState = map[int]string{
	1210: "HY000", // ER_WRONG_ARGUMENTS (JSON_SEARCH's escape)
	1582: "42000", // ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT
	3141: "22032", // ER_INVALID_JSON_TEXT_IN_PARAM
	3143: "42000", // ER_INVALID_JSON_PATH
	3146: "22032", // ER_INVALID_TYPE_FOR_JSON
	3149: "42000", // ER_INVALID_JSON_PATH_WILDCARD
	3154: "42000", // ER_JSON_BAD_ONE_OR_ALL_ARG
	3158: "22032", // ER_JSON_DOCUMENT_NULL_KEY
	// JSON_TABLE's (translate/jsontable.go)
	1060: "42S21", // ER_DUP_FIELDNAME
	1067: "42000", // ER_INVALID_DEFAULT
	1406: "22001", // ER_DATA_TOO_LONG
	3156: "22018", // ER_INVALID_JSON_VALUE_FOR_CAST
	3665: "22035", // ER_MISSING_JSON_TABLE_VALUE
	3666: "2203F", // ER_WRONG_JSON_TABLE_VALUE
	3668: "HY000", // ER_TF_FORBIDDEN_JOIN_TYPE
	3669: "22003", // ER_JT_VALUE_OUT_OF_RANGE
	3670: "42000", // ER_JT_MAX_NESTED_PATH
}

// ServerVersion is the version the driver answers to VERSION() and @@version, which a MySQL
// server speaking for the driver announces in its handshake (sysvar decides it).
const ServerVersion = sysvar.ServerVersion
