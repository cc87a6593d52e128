module github.com/airsql/airsql

go 1.26.8

require (
	github.com/go-sql-driver/mysql v1.9.3
	github.com/jmoiron/sqlx v1.4.0
	github.com/xwb1989/sqlparser v0.0.0-20180606152119-120387863bf2
	go.uber.org/goleak v1.3.0
	golang.org/x/term v0.47.0
	golang.org/x/time v0.16.0
	gorm.io/driver/mysql v1.6.0
	gorm.io/gorm v1.31.2
)

require (
	filippo.io/edwards25519 v1.1.0 // indirect
	github.com/jinzhu/inflection v1.0.0 // indirect
	github.com/jinzhu/now v1.1.5 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.20.0 // indirect
)
