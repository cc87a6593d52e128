module github.com/airsql/airsql

go 1.26.8

require (
	github.com/jmoiron/sqlx v1.4.0
	github.com/xwb1989/sqlparser v0.0.0-20180606152119-120387863bf2
	go.uber.org/goleak v1.3.0
	golang.org/x/term v0.47.0
)

require golang.org/x/sys v0.49.0 // indirect
