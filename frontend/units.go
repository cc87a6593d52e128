package frontend

// IntervalUnits are the interval units of DATE_ADD, TIMESTAMPDIFF and EXTRACT.
var IntervalUnits = map[string]bool{
	"MICROSECOND": true, "SECOND": true, "MINUTE": true, "HOUR": true, "DAY": true, "WEEK": true,
	"MONTH": true, "QUARTER": true, "YEAR": true, "SECOND_MICROSECOND": true, "MINUTE_MICROSECOND": true,
	"MINUTE_SECOND": true, "HOUR_MICROSECOND": true, "HOUR_SECOND": true, "HOUR_MINUTE": true,
	"DAY_MICROSECOND": true, "DAY_SECOND": true, "DAY_MINUTE": true, "DAY_HOUR": true, "YEAR_MONTH": true,
}
