package org.slotbook.spring;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.module.SimpleModule;

import java.util.function.Function;
import org.slotbook.core.AvailabilityResult;
import org.slotbook.core.BookingId;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.CoachId;
import org.slotbook.core.CheckInResult;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LeaveResult;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;

/**
 * Jackson 3 ({@code tools.jackson}, Spring Boot 4's JSON) support for Slotbook's types, the same as
 * {@link SlotbookJacksonModule} gives Jackson 2: every id ({@code TenantId}, {@code SlotId}, {@code BookingId},
 * ...) is written and read as a plain JSON string, and every result carries its type as
 * {@code "type"} ({@code {"type":"Full","slotId":"s1"}}, {@code {"type":"NotFound"}}), so that
 * outcomes with the same fields, or none, can be told apart.
 */
public final class SlotbookJackson3Module extends SimpleModule {
    private static final long serialVersionUID = 1L;

    /** A module that writes and reads Slotbook's ids as strings and its results with their type. */
    public SlotbookJackson3Module() {
        super("slotbook");
        id(TenantId.class, TenantId::value, TenantId::of);
        id(SlotId.class, SlotId::value, SlotId::of);
        id(CoachId.class, CoachId::value, CoachId::of);
        id(RoomId.class, RoomId::value, RoomId::of);
        id(StudentId.class, StudentId::value, StudentId::of);
        id(BookingId.class, BookingId::value, BookingId::of);
        id(RequestId.class, RequestId::value, RequestId::of);
        id(PackageId.class, PackageId::value, PackageId::of);
        id(SeriesId.class, SeriesId::value, SeriesId::of);
        for (Class<?> result : new Class<?>[] {HoldResult.class, ConfirmResult.class, CancelResult.class,
                CancelSlotResult.class, ScheduleResult.class, AvailabilityResult.class, LeaveResult.class,
                CheckInResult.class}) {
            setMixInAnnotation(result, TypedResult.class);
        }
    }

    private <T> void id(Class<T> type, Function<T, String> value, Function<String, T> parse) {
        addSerializer(type, new ValueSerializer<T>() {
            @Override
            public void serialize(T id, JsonGenerator gen, SerializationContext context) {
                gen.writeString(value.apply(id));
            }
        });
        addDeserializer(type, new ValueDeserializer<T>() {
            @Override
            public T deserialize(JsonParser p, DeserializationContext ctxt) {
                return parse.apply(p.getValueAsString());
            }
        });
    }

    /** Results name their type in a {@code "type"} property: the simple name of the result record. */
    @JsonTypeInfo(use = JsonTypeInfo.Id.SIMPLE_NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
    private interface TypedResult {
    }
}
