package airsql

import (
	"context"
	"testing"
)

// TestClientConnectQueries: the queries JDBC drivers send when they connect are answered, so the
// tools built on them (DBeaver with MySQL Connector/J, Metabase with MariaDB Connector/J) connect
// through `airsql serve`. MySQL Connector/J's query reads every variable in one SELECT: one unknown
// variable fails the connection.
func TestClientConnectQueries(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	ctx := context.Background()
	for _, q := range []string{
		// MySQL Connector/J 8.0 (as it reads a 10.11 server: transaction_isolation, no query cache).
		"/* mysql-connector-java-8.0.33 (Revision: 7d6b0800528b6b25c68b52dc10d6c1c8429c100c) */SELECT  @@session.auto_increment_increment AS auto_increment_increment, @@character_set_client AS character_set_client, @@character_set_connection AS character_set_connection, @@character_set_results AS character_set_results, @@character_set_server AS character_set_server, @@collation_server AS collation_server, @@collation_connection AS collation_connection, @@init_connect AS init_connect, @@interactive_timeout AS interactive_timeout, @@license AS license, @@lower_case_table_names AS lower_case_table_names, @@max_allowed_packet AS max_allowed_packet, @@net_write_timeout AS net_write_timeout, @@performance_schema AS performance_schema, @@sql_mode AS sql_mode, @@system_time_zone AS system_time_zone, @@time_zone AS time_zone, @@transaction_isolation AS transaction_isolation, @@wait_timeout AS wait_timeout",
		// MySQL Connector/J 5.1.
		"/* mysql-connector-java-5.1.46 ( Revision: 9cc87a48e75c2d2e87c1a293b2862ce651cb256e ) */SELECT  @@session.auto_increment_increment AS auto_increment_increment, @@character_set_client AS character_set_client, @@character_set_connection AS character_set_connection, @@character_set_results AS character_set_results, @@character_set_server AS character_set_server, @@collation_server AS collation_server, @@init_connect AS init_connect, @@interactive_timeout AS interactive_timeout, @@license AS license, @@lower_case_table_names AS lower_case_table_names, @@max_allowed_packet AS max_allowed_packet, @@net_buffer_length AS net_buffer_length, @@net_write_timeout AS net_write_timeout, @@query_cache_size AS query_cache_size, @@query_cache_type AS query_cache_type, @@sql_mode AS sql_mode, @@system_time_zone AS system_time_zone, @@time_zone AS time_zone, @@tx_isolation AS transaction_isolation, @@wait_timeout AS wait_timeout",
		"SELECT @@session.transaction_read_only",
		"SHOW WARNINGS", // Connector/J 8 after a statement with warnings; the mysql client's --show-warnings
		"SELECT @@session.transaction_isolation",
	} {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Errorf("%.60s…: %v", q, err)
			continue
		}
		if !rows.Next() && q != "SHOW WARNINGS" {
			t.Errorf("%.60s…: no row", q)
		}
		rows.Close()
	}
	for _, q := range []string{"SET NAMES utf8mb4", "SET character_set_results = NULL", "SET autocommit=1"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}
