package org.slotbook.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class MariaDbLessonsTest extends LessonsStoreTests {
    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.mariadb();
    }

    /** MariaDB keeps UTC instants in DATETIME columns: read the wall-clock value as UTC. */
    @Override
    protected Instant instant(ResultSet rs, int column) throws SQLException {
        return rs.getObject(column, LocalDateTime.class).toInstant(ZoneOffset.UTC);
    }
}
