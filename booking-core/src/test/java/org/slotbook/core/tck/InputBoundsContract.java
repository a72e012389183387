package org.slotbook.core.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingListener;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CoachId;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.BookingStore;

/**
 * The same input gets the same answer on every backend: instants at both ends of the range every
 * database stores, and ids made of emoji sequences joined by U+200D, go in and come back unchanged; an
 * instant outside the range is refused before anything is written. Mixed into
 * {@link BookingEngineContract}, so every backend runs it; what is stored is read back from the store.
 */
public interface InputBoundsContract {

    BookingEngine rulesEngine(BookingRules rules, BookingListener listener);

    MutableClock testClock();

    TenantId testTenant();

    BookingStore testStore();

    private Slot scheduled(BookingEngine engine, SlotSpec spec) {
        ScheduleResult result = engine.schedule(testTenant(), spec);
        assertThat(result).as("schedule %s", spec.slotId()).isInstanceOf(Scheduled.class);
        return ((Scheduled) result).slot();
    }

    private static Booking held(HoldResult result) {
        assertThat(result).isInstanceOf(Held.class);
        return ((Held) result).booking();
    }

    @Test
    default void sessionsAtBothEndsOfTheInstantRangeAreStoredAndBookedAlikeAndOneOutsideIsRefused() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        // the last hour before 9999-01-01T00:00:00Z, the first bound refused
        TimeRange last = TimeRange.of(Instant.parse("9998-12-31T23:00:00Z"), Duration.ofMinutes(59));
        TimeRange first = TimeRange.of(Instant.parse("1900-01-01T00:00:00Z"), Duration.ofHours(1));
        Slot late = scheduled(engine, new SlotSpec(SlotId.of("last"), CoachId.of("c1"), RoomId.of("r1"), last, 2));
        Slot early = scheduled(engine, new SlotSpec(SlotId.of("first"), CoachId.of("c2"), RoomId.of("r2"), first, 2));
        Booking b = held(engine.hold(testTenant(), HoldRequest.of(RequestId.random(), late.slotId(),
                StudentId.of("sue"))));
        assertThat(engine.confirm(testTenant(), b.bookingId(), StudentId.of("sue"))).isInstanceOf(Confirmed.class);
        assertThat(testStore().findBooking(testTenant(), b.bookingId()).orElseThrow().status())
                .isEqualTo(BookingStatus.CONFIRMED);
        assertThat(testStore().slots(testTenant(), null, 10)).extracting(Slot::slotId, Slot::time)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(early.slotId(), first),
                        org.assertj.core.groups.Tuple.tuple(late.slotId(), last));

        // a session in the year 9999 (which MariaDB's DATETIME could not hold with its week) and one
        // before 1900: refused by name and value, before any call reaches the store
        assertThatThrownBy(() -> TimeRange.of(Instant.parse("9999-06-01T10:00:00Z"), Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("start").hasMessageContaining("9999-06-01T10:00:00Z");
        assertThatThrownBy(() -> TimeRange.of(Instant.parse("9998-12-31T23:30:00Z"), Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("end").hasMessageContaining("9999-01-01T00:30:00Z");
        assertThatThrownBy(() -> TimeRange.of(Instant.parse("1899-12-31T23:00:00Z"), Duration.ofHours(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("start");
        assertThat(testStore().slots(testTenant(), null, 10)).hasSize(2);
    }

    @Test
    default void idsOfEmojiSequencesJoinedByZeroWidthJoinersRoundTripAndStayDistinct() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        // family: woman, woman, girl, boy; and woman, woman, boy, boy: the same code points but one
        String family = "\uD83D\uDC69\u200D\uD83D\uDC69\u200D\uD83D\uDC67\u200D\uD83D\uDC66";
        String otherFamily = "\uD83D\uDC69\u200D\uD83D\uDC69\u200D\uD83D\uDC66\u200D\uD83D\uDC66";
        String teacher = "\uD83E\uDDD1\u200D\uD83C\uDFEB";
        String rainbowFlag = "\uD83C\uDFF3\uFE0F\u200D\uD83C\uDF08";
        TimeRange time = TimeRange.of(Instant.parse("2031-05-05T10:00:00Z"), Duration.ofHours(1));
        Slot slot = scheduled(engine, new SlotSpec(SlotId.of("class-" + teacher), CoachId.of(teacher),
                RoomId.of("room-" + rainbowFlag), time, 3));
        HoldRequest one = HoldRequest.of(RequestId.of(rainbowFlag + "-1"), slot.slotId(), StudentId.of(family));
        HoldRequest two = HoldRequest.of(RequestId.of(rainbowFlag + "-2"), slot.slotId(), StudentId.of(otherFamily));
        Booking a = held(engine.hold(testTenant(), one));
        Booking b = held(engine.hold(testTenant(), two));

        Booking storedA = testStore().findByRequest(testTenant(), one.requestId()).orElseThrow();
        Booking storedB = testStore().findByRequest(testTenant(), two.requestId()).orElseThrow();
        assertThat(List.of(storedA.bookingId(), storedB.bookingId())).containsExactly(a.bookingId(), b.bookingId());
        assertThat(storedA.studentId().value()).isEqualTo(family);
        assertThat(storedB.studentId().value()).isEqualTo(otherFamily);
        assertThat(storedA.requestId().value()).isEqualTo(rainbowFlag + "-1");
        assertThat(storedA.slotId().value()).isEqualTo("class-" + teacher);
        Slot read = testStore().slots(testTenant(), null, 10).get(0);
        assertThat(List.of(read.coachId().value(), read.roomId().value()))
                .containsExactly(teacher, "room-" + rainbowFlag);
        assertThat(testStore().availability(testTenant(), slot.slotId(), testClock().instant()).orElseThrow().remaining())
                .as("two students, two seats").isEqualTo(1);
        assertThat(engine.hold(testTenant(), one)).as("a retry finds the stored request")
                .isEqualTo(new Held(storedA, true));
    }
}
