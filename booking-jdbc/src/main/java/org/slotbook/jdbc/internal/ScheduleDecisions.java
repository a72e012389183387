package org.slotbook.jdbc.internal;

import static org.slotbook.jdbc.internal.Params.RECORD;
import static org.slotbook.jdbc.internal.Params.epochMicros;
import static org.slotbook.jdbc.internal.Params.micros;
import static org.slotbook.jdbc.internal.Params.notNull;
import static org.slotbook.jdbc.internal.Params.record;
import static org.slotbook.jdbc.internal.Params.unexpected;

import java.sql.Types;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.Conflict;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.Slot;
import org.slotbook.core.TenantId;
import org.slotbook.jdbc.internal.Facts.Fact;

/**
 * The decisions that create slots: {@code schedule} (one slot) and {@code schedule_series} (the
 * occurrences of a series, all or nothing or best effort). See {@link Decisions} for the routines.
 */
final class ScheduleDecisions {
    private final StoreCore core;
    private final SqlDialect sql;
    private final String schedule;
    private final String scheduleSeries;

    ScheduleDecisions(StoreCore core) {
        this.core = core;
        this.sql = core.sql();
        this.schedule = sql.call("schedule", 19);
        this.scheduleSeries = sql.call("schedule_series", 5);
    }

    public ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession, ZoneId weekZone) {
        notNull("tenantId", tenantId);
        notNull("slot", slot);
        notNull("weekZone", weekZone);
        LocalDate monday = slot.time().start().atZone(weekZone).toLocalDate()
                .with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
        Facts facts = core.run(tenantId, "schedule slot " + slot.slotId(), schedule, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, slot.slotId().value());
            ps.setString(i++, slot.coachId().value());
            ps.setString(i++, slot.roomId().value());
            sql.bindInstant(ps, i++, slot.time().start());
            sql.bindInstant(ps, i++, slot.time().end());
            ps.setInt(i++, slot.capacity());
            ps.setLong(i++, micros(longestSession));
            sql.bindInstant(ps, i++, slot.opensAt());
            sql.bindInstant(ps, i++, slot.closesAt());
            ps.setInt(i++, (int) slot.buffer().toSeconds());
            ps.setString(i++, Facts.policyName(slot.cancellation()));
            if (slot.cancellation() == null || slot.cancellation().cutoff() == null) {
                ps.setNull(i++, Types.INTEGER);
            } else {
                ps.setInt(i++, (int) slot.cancellation().cutoff().toSeconds());
            }
            sql.bindInstant(ps, i++, monday.atStartOfDay(weekZone).toInstant());
            sql.bindInstant(ps, i++, monday.plusWeeks(1).atStartOfDay(weekZone).toInstant());
            ps.setBoolean(i++, slot.bufferStudents());
            ps.setString(i++, slot.classType());
            ps.setInt(i++, slot.cost());
            ps.setString(i, slot.seriesId() == null ? null : slot.seriesId().value());
        }, rs -> Facts.read(rs, sql, tenantId), false);
        Fact answer = facts.answer("schedule");
        return switch (answer.tag()) {
            case "SCHEDULED", "EXISTS" -> new Scheduled(facts.slot(answer));
            case "CONFLICT" -> new Conflict(facts.conflicts());
            default -> throw unexpected("schedule", answer);
        };
    }

    public SeriesResult scheduleSeries(TenantId tenantId, SeriesId seriesId, SeriesMode mode, List<Slot> occurrences,
                                       Duration longestSession, ZoneId weekZone) {
        notNull("tenantId", tenantId);
        notNull("seriesId", seriesId);
        notNull("mode", mode);
        notNull("occurrences", occurrences);
        notNull("longestSession", longestSession);
        notNull("weekZone", weekZone);
        StringBuilder records = new StringBuilder();
        for (int n = 0; n < occurrences.size(); n++) {
            Slot slot = notNull("occurrences[" + n + "]", occurrences.get(n));
            if (!seriesId.equals(slot.seriesId())) {
                throw new InvalidInputException("occurrences[" + n + "] (slot '" + slot.slotId()
                        + "') must be of series '" + seriesId + "', got " + (slot.seriesId() == null ? "none"
                        : "'" + slot.seriesId() + "'"));
            }
            LocalDate monday = slot.time().start().atZone(weekZone).toLocalDate()
                    .with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
            CancellationPolicy policy = slot.cancellation();
            if (n > 0) {
                records.append(RECORD);
            }
            record(records, slot.slotId().value(), slot.coachId().value(), slot.roomId().value(),
                    epochMicros(slot.time().start()), epochMicros(slot.time().end()),
                    Integer.toString(slot.capacity()), epochMicros(slot.opensAt()), epochMicros(slot.closesAt()),
                    Long.toString(slot.buffer().toSeconds()), nullToEmpty(Facts.policyName(policy)),
                    policy == null || policy.cutoff() == null ? "" : Long.toString(policy.cutoff().toSeconds()),
                    epochMicros(monday.atStartOfDay(weekZone).toInstant()),
                    epochMicros(monday.plusWeeks(1).atStartOfDay(weekZone).toInstant()),
                    slot.bufferStudents() ? "1" : "0", nullToEmpty(slot.classType()), Integer.toString(slot.cost()));
        }
        if (occurrences.isEmpty()) {
            return new SeriesResult(seriesId, mode, List.of());
        }
        Facts facts = core.run(tenantId, "schedule series " + seriesId, scheduleSeries, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, seriesId.value());
            ps.setString(i++, mode.name());
            ps.setLong(i++, micros(longestSession));
            ps.setString(i, records.toString());
        }, rs -> Facts.read(rs, sql, tenantId), false);
        boolean anyConflict = false;
        for (Slot slot : occurrences) {
            anyConflict |= !facts.conflicts(slot.slotId().value()).isEmpty();
        }
        boolean rolledBack = anyConflict && mode == SeriesMode.ALL_OR_NOTHING;
        List<SeriesResult.Occurrence> answer = new ArrayList<>(occurrences.size());
        for (Slot slot : occurrences) {
            List<org.slotbook.core.ResourceConflict> conflicts = facts.conflicts(slot.slotId().value());
            if (!conflicts.isEmpty()) {
                answer.add(new SeriesResult.Occurrence(slot, SeriesResult.Occurrence.Status.CONFLICT, conflicts));
            } else if (rolledBack) {
                answer.add(new SeriesResult.Occurrence(slot, SeriesResult.Occurrence.Status.ROLLED_BACK, List.of()));
            } else {
                Fact stored = facts.rows().stream()
                        .filter(f -> ("SCHEDULED".equals(f.tag()) || "EXISTS".equals(f.tag()))
                                && slot.slotId().value().equals(f.slotId()))
                        .findFirst()
                        .orElseThrow(() -> new BookingStoreException("routine schedule_series answered nothing for"
                                + " occurrence '" + slot.slotId() + "'"));
                answer.add(new SeriesResult.Occurrence(facts.slot(stored), SeriesResult.Occurrence.Status.SCHEDULED,
                        List.of()));
            }
        }
        return new SeriesResult(seriesId, mode, answer);
    }

    private static String nullToEmpty(String value) {
        return value == null ? "" : value;
    }
}
