package org.slotbook.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slotbook.core.spi.BookingStore;

/**
 * Core's packages are {@code @NullMarked} and say where null is allowed; jspecify is an optional
 * dependency, so a host that does not have it still compiles against core.
 */
class NullnessAnnotationsTest {

    @Test
    void everyPackageIsNullMarked() throws Exception {
        for (String name : List.of("org.slotbook.core", "org.slotbook.core.spi", "org.slotbook.core.memory",
                "org.slotbook.core.shard", "org.slotbook.core.internal", "org.slotbook.core.internal.engine")) {
            Class<?> info = Class.forName(name + ".package-info");
            assertThat(info.getAnnotation(NullMarked.class)).as(name).isNotNull();
        }
    }

    @Test
    void nullThatMeansSomethingIsMarkedNullable() throws Exception {
        assertThat(Slot.class.getRecordComponents()[7].getName()).isEqualTo("opensAt");
        assertThat(Slot.class.getRecordComponents()[7].getAnnotatedType().isAnnotationPresent(Nullable.class))
                .isTrue();
        assertThat(Slot.class.getRecordComponents()[0].getAnnotatedType().isAnnotationPresent(Nullable.class))
                .isFalse();
        var tenants = BookingStore.class.getMethod("tenants", TenantId.class, int.class);
        assertThat(tenants.getAnnotatedParameterTypes()[0].isAnnotationPresent(Nullable.class)).isTrue();
        var roster = BookingStore.class.getMethod("roster", TenantId.class, SlotId.class, Instant.class, int.class,
                int.class);
        assertThat(roster.getAnnotatedParameterTypes()[2].isAnnotationPresent(Nullable.class)).isTrue();
    }

    @Test
    void aHostWithoutJspecifyStillCompiles(@TempDir Path out) throws Exception {
        String source = """
                import java.time.Instant;
                import java.util.List;
                import org.slotbook.core.*;
                import org.slotbook.core.spi.*;

                class Host {
                    static Instant opening(Slot slot) {
                        Instant opensAt = slot.opensAt();
                        return opensAt == null ? slot.time().start() : opensAt;
                    }

                    static List<TenantId> firstTenants(BookingEngine engine) {
                        return engine.tenants(null, 10);
                    }

                    static SlotSpec anyTime(SlotSpec spec) {
                        return spec.withBookingWindow(null, null).withCancellation(null);
                    }

                    static abstract class Counting extends ForwardingStore {
                        int cancels;

                        @Override
                        public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId,
                                                                 StudentId studentId, Instant now, Terms terms) {
                            cancels++;
                            return super.cancel(tenantId, bookingId, studentId, now, terms);
                        }
                    }
                }
                """;
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///Host.java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        // core's classes and slf4j, and not jspecify
        String classpath = location(BookingEngine.class) + File.pathSeparator + location(org.slf4j.Logger.class);
        assertThat(classpath).doesNotContain("jspecify");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        StringWriter output = new StringWriter();
        boolean compiled = javac.getTask(output, null, diagnostics,
                List.of("-classpath", classpath, "-d", out.toString(), "-Xlint:all", "-Werror"), null,
                List.of(file)).call();
        assertThat(compiled).as(diagnostics.getDiagnostics() + " " + output).isTrue();
        assertThat(Files.exists(out.resolve("Host.class"))).isTrue();
    }

    private static String location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
