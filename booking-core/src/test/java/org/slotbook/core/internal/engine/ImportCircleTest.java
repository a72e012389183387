package org.slotbook.core.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slotbook.core.BookingEngine;

/**
 * No import circle inside a module: in the main sources of core, jdbc and redis, no file reaches itself
 * again by following the imports of the module's own files (single-type, nested-type, static and
 * on-demand imports). The engine's machinery ({@code internal.engine}) in particular depends on what it
 * is given, never on {@link BookingEngine}, which uses it.
 */
class ImportCircleTest {
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(static\\s+)?([\\w.]+)(\\.\\*)?\\s*;");

    @ParameterizedTest
    @ValueSource(strings = {"booking-core", "booking-jdbc", "booking-redis"})
    void noModuleHasAnImportCircle(String module) {
        Map<String, Set<String>> imports = imports(Path.of("..", module, "src/main/java"));
        assertThat(imports).as("main sources of " + module).isNotEmpty();
        assertThat(circles(imports)).as("import circles in " + module).isEmpty();
    }

    @Test
    void theEngineMachineryImportsNotTheEngine() {
        Map<String, Set<String>> imports = imports(Path.of("..", "booking-core", "src/main/java"));
        List<String> offenders = imports.entrySet().stream()
                .filter(e -> e.getKey().startsWith(EngineLog.class.getPackageName() + "."))
                .filter(e -> e.getValue().contains(BookingEngine.class.getName()))
                .map(Map.Entry::getKey).toList();
        assertThat(offenders).isEmpty();
    }

    @Test
    void theMachineryLogsUnderTheEnginesName() {
        assertThat(EngineLog.CATEGORY).isEqualTo(BookingEngine.class.getName());
    }

    /** Each top-level type of the sources (by file) and the module's own top-level types it imports. */
    private static Map<String, Set<String>> imports(Path root) {
        Map<String, String> sources = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String text = Files.readString(file);
                Matcher pkg = PACKAGE.matcher(text);
                String name = file.getFileName().toString().replace(".java", "");
                sources.put((pkg.find() ? pkg.group(1) + "." : "") + name, text);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Set<String>> graph = new TreeMap<>();
        sources.forEach((type, text) -> {
            Set<String> targets = new LinkedHashSet<>();
            Matcher m = IMPORT.matcher(text);
            while (m.find()) {
                String name = m.group(2);
                if (m.group(3) != null && m.group(1) == null) {
                    // on demand: every type of the package (or every nested type of a type)
                    sources.keySet().stream()
                            .filter(t -> t.startsWith(name + ".") && t.indexOf('.', name.length() + 1) < 0)
                            .forEach(targets::add);
                }
                // a type, a nested type, a static member: the longest prefix that is a type of the module
                for (String n = name; n.contains("."); n = n.substring(0, n.lastIndexOf('.'))) {
                    if (sources.containsKey(n)) {
                        targets.add(n);
                        break;
                    }
                }
            }
            targets.remove(type);
            graph.put(type, targets);
        });
        return graph;
    }

    /** The strongly connected parts of more than one type (Tarjan), each as its types. */
    private static List<Set<String>> circles(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new LinkedHashSet<>();
        List<Set<String>> out = new ArrayList<>();
        for (String start : graph.keySet()) {
            if (!index.containsKey(start)) {
                connect(start, graph, index, low, stack, onStack, out);
            }
        }
        return out;
    }

    private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
                                Map<String, Integer> low, Deque<String> stack, Set<String> onStack,
                                List<Set<String>> out) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, graph, index, low, stack, onStack, out);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> part = new LinkedHashSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                part.add(w);
            } while (!w.equals(v));
            if (part.size() > 1) {
                out.add(part);
            }
        }
    }
}
