package org.slotbook.core.internal.rules;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slotbook.core.Availability;
import org.slotbook.core.BookedSession;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SeriesId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.rules.Occupancy;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.rules.Waiter;
import org.slotbook.core.spi.LiveSlot;

/** What the rules answer without deciding anything: waitlists, rosters, timetables, availability. */
final class Reads {
    private static final Comparator<Slot> BY_START =
            Comparator.comparing((Slot s) -> s.time().start()).thenComparing(Slot::slotId);

    private Reads() {
    }

    static Optional<WaitlistEntry> waiter(RuleTx tx, RequestId requestId) {
        return tx.waiter(requestId).map(w -> Students.entry(tx, w));
    }

    static List<WaitlistEntry> waitlist(RuleTx tx, SlotId slotId, int offset, int limit) {
        List<Waiter> page = tx.waiting(slotId).stream().skip(offset).limit(limit).toList();
        List<WaitlistEntry> entries = new ArrayList<>(page.size());
        for (int i = 0; i < page.size(); i++) {
            entries.add(Students.entry(tx, page.get(i), offset + i + 1));
        }
        return entries;
    }

    static List<Booking> roster(RuleTx tx, SlotId slotId, Instant now, int offset, int limit) {
        return tx.seated(slotId).stream().filter(b -> b.isLive(now)).skip(offset).limit(limit).toList();
    }

    static List<BookedSession> studentBookings(RuleTx tx, StudentId studentId, Instant now, boolean upcoming,
                                               int offset, int limit) {
        List<BookedSession> list = new ArrayList<>();
        for (Booking b : tx.bookingsOf(studentId)) {
            Slot slot = tx.slot(b.slotId(), false).orElseThrow(() -> Seating.missing(b)).slot();
            boolean over = !slot.time().end().isAfter(now);
            if (upcoming ? !over && b.isLive(now) : over && b.status() == BookingStatus.CONFIRMED) {
                list.add(new BookedSession(b, slot));
            }
        }
        Comparator<BookedSession> order = Comparator.comparing((BookedSession s) -> s.slot().time().start())
                .thenComparing(s -> s.booking().bookingId());
        list.sort(upcoming ? order : order.reversed());
        return list.stream().skip(offset).limit(limit).toList();
    }

    /** The open slots of a coach or room (every one occupies it) whose session overlaps the range. */
    static List<Slot> timetable(RuleTx tx, ResourceRef resource, TimeRange range, int offset, int limit) {
        return tx.occupations(resource, range.start(), range.end()).stream().map(Occupancy::slotId).distinct()
                .flatMap(id -> tx.slot(id, false).stream()).map(StoredSlot::slot)
                .filter(s -> s.status() == SlotStatus.OPEN && s.time().overlaps(range))
                .sorted(BY_START).skip(offset).limit(limit).toList();
    }

    static Optional<Availability> availability(RuleTx tx, SlotId slotId, Instant now) {
        Optional<StoredSlot> found = tx.slot(slotId, false);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Slot slot = found.get().slot();
        if (slot.status() == SlotStatus.CANCELLED) {
            return Optional.of(new Availability(slotId, SlotStatus.CANCELLED, slot.capacity(), 0, 0, 0));
        }
        int held = 0;
        int confirmed = 0;
        for (Booking b : tx.seated(slotId)) {
            if (b.status() == BookingStatus.CONFIRMED) {
                confirmed++;
            } else if (b.isLive(now)) {
                held++;
            }
        }
        return Optional.of(new Availability(slotId, slot.status(), slot.capacity(), held, confirmed,
                Math.max(0, slot.capacity() - held - confirmed)));
    }

    static Optional<LiveSlot> liveSlot(RuleTx tx, SlotId slotId, Instant now) {
        return tx.slot(slotId, false).map(stored -> new LiveSlot(stored.slot(),
                stored.slot().status() == SlotStatus.OPEN
                        ? tx.seated(slotId).stream().filter(b -> b.isLive(now)).toList() : List.of()));
    }

    static List<Slot> seriesSlots(RuleTx tx, SeriesId seriesId, Instant after, int limit) {
        return tx.seriesSlots(seriesId).stream()
                .filter(s -> s.status() == SlotStatus.OPEN && s.time().start().isAfter(after))
                .sorted(BY_START).limit(limit).toList();
    }

    static List<LessonPackage> packages(RuleTx tx, StudentId studentId, int offset, int limit) {
        return tx.packagesOf(studentId).stream().sorted(Credits.PACKAGE_ORDER).skip(offset).limit(limit).toList();
    }
}
