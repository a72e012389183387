package org.slotbook.jdbc.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.jdbi.v3.core.argument.Argument;
import org.slotbook.jdbc.JdbcDialect;

/**
 * Instants in and out of the database as UTC, at microsecond precision, independent of the JVM's
 * and the session's time zone: {@code timestamptz} and H2's {@code TIMESTAMP WITH TIME ZONE} take an
 * {@link OffsetDateTime} at UTC; MariaDB's {@code DATETIME(6)} takes the UTC wall clock as a
 * {@link LocalDateTime}, which no time zone conversion touches.
 */
public final class Times {
    private final boolean localUtc;

    public Times(JdbcDialect dialect) {
        this.localUtc = dialect == JdbcDialect.MARIADB;
    }

    public Argument arg(Instant instant) {
        Instant micros = instant.truncatedTo(ChronoUnit.MICROS);
        Object value = localUtc ? LocalDateTime.ofInstant(micros, ZoneOffset.UTC) : micros.atOffset(ZoneOffset.UTC);
        return (position, statement, ctx) -> statement.setObject(position, value);
    }

    public Instant read(ResultSet rs, String column) throws SQLException {
        if (localUtc) {
            LocalDateTime value = rs.getObject(column, LocalDateTime.class);
            return value == null ? null : value.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
