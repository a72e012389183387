package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slotbook.jdbc.internal.SqlDialect;
import org.slotbook.jdbc.internal.Tables;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class PostgresAllTenantsUpkeepTest extends AllTenantsUpkeepTests {
    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.postgres();
    }

    /**
     * A page of tenants is read along the slot primary key (an index-only scan, no sort), custom and
     * generic plan alike, on 2,000 tenants of 10 slots each after ANALYZE. (On empty tables the
     * planner sorts a sequential scan instead, which costs nothing there.)
     */
    @Test
    void aPageOfTenantsIsReadAlongTheSlotPrimaryKey() throws SQLException {
        try (TestDatabase fresh = TestDatabases.postgres(); Connection c = fresh.dataSource().getConnection();
             Statement st = c.createStatement()) {
            String slot = fresh.table("slot");
            String index = fresh.table("slot_pk");
            SqlDialect sql = SqlDialect.of(JdbcDialect.POSTGRESQL, new Tables(fresh.prefix()));
            st.execute("INSERT INTO " + slot + " (tenant_id, slot_id, coach_id, room_id, starts_at, ends_at, capacity,"
                    + " status) SELECT 'tenant-' || lpad((g / 10)::text, 5, '0'), 'slot-' || g, 'c', 'r',"
                    + " now() + g * interval '1 hour', now() + g * interval '1 hour' + interval '30 minutes', 1, 'OPEN'"
                    + " FROM generate_series(1, 20000) g");
            st.execute("ANALYZE " + slot);
            expectIndexOnly(st, sql.tenants(true), "'tenant-00099', 500", index);
            expectIndexOnly(st, sql.tenants(false), "500", index);
            assertThat(fresh.store().tenants(org.slotbook.core.TenantId.of("tenant-00099"), 3))
                    .extracting(org.slotbook.core.TenantId::value)
                    .containsExactly("tenant-00100", "tenant-00101", "tenant-00102");
        }
    }

    private static void expectIndexOnly(Statement st, String statement, String args, String index)
            throws SQLException {
        // the store's statement as the driver sends it: a varchar "after" (when there is one), an int limit
        boolean after = statement.contains("tenant_id > ?");
        st.execute("PREPARE page (" + (after ? "varchar, int" : "int") + ") AS "
                + statement.replaceFirst("\\?", "\\$1").replaceFirst("\\?", "\\$2"));
        try {
            for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
                st.execute("SET plan_cache_mode = " + mode);
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = st.executeQuery("EXPLAIN (COSTS OFF) EXECUTE page (" + args + ")")) {
                    while (rs.next()) {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
                assertThat(plan.toString()).as(mode + " plan of " + statement)
                        .contains("Index Only Scan using " + index + " ").doesNotContain("Seq Scan").doesNotContain("Sort");
            }
        } finally {
            st.execute("RESET plan_cache_mode");
            st.execute("DEALLOCATE page");
        }
    }
}
