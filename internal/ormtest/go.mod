module github.com/airsql/airsql/internal/ormtest

go 1.26.8

replace github.com/airsql/airsql => ../..

require (
	github.com/Masterminds/squirrel v1.5.4
	github.com/airsql/airsql v0.0.0-00010101000000-000000000000
	github.com/doug-martin/goqu/v9 v9.19.0
	github.com/jmoiron/sqlx v1.4.0
	go.uber.org/goleak v1.3.0
	gorm.io/driver/mysql v1.6.0
	gorm.io/gorm v1.31.2
)

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	github.com/go-sql-driver/mysql v1.10.1 // indirect
	github.com/jinzhu/inflection v1.0.0 // indirect
	github.com/jinzhu/now v1.1.5 // indirect
	github.com/lann/builder v0.0.0-20180802200727-47ae307949d0 // indirect
	github.com/lann/ps v0.0.0-20150810152359-62de8c46ede0 // indirect
	github.com/xwb1989/sqlparser v0.0.0-20180606152119-120387863bf2 // indirect
	golang.org/x/text v0.41.0 // indirect
)
