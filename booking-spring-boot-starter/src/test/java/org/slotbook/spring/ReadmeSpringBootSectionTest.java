package org.slotbook.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slotbook.core.tck.MarkdownPages;

/**
 * Keeps the Spring Boot guide honest (docs/guides/spring-boot.md, section "Spring Boot"): its properties table is the starter's configuration
 * metadata (every property, with its default), its transaction snippet is the code the starter's
 * Spring test runs, and the example service's settings it quotes are the file the service starts with.
 */
class ReadmeSpringBootSectionTest {
    private static final Path ROOT = Path.of("..");

    private static String section() {
        return MarkdownPages.section("docs/guides/spring-boot.md", "## Spring Boot");
    }

    @Test
    void thePropertiesTableIsTheConfigurationMetadata() throws Exception {
        Map<String, String> documented = new LinkedHashMap<>();
        String table = section().split("<!-- properties: booking-spring-boot-starter -->")[1]
                .split("<!-- end of properties -->")[0];
        Matcher row = Pattern.compile("(?m)^\\| `([a-z.\\-]+)` \\| (?:`([^`]*)`|\\(none\\)) \\|").matcher(table);
        while (row.find()) {
            documented.put(row.group(1), row.group(2));
        }
        Map<String, String> actual = new LinkedHashMap<>();
        try (InputStream in = getClass().getClassLoader()
                .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            for (JsonNode property : new ObjectMapper().readTree(in).get("properties")) {
                JsonNode value = property.get("defaultValue");
                actual.put(property.get("name").asText(), value == null ? null : value.asText());
            }
        }
        assertThat(documented).isEqualTo(actual);
    }

    @Test
    void theTransactionSnippetIsTheTestedCode() throws Exception {
        String source = Files.readString(Path.of("src/test/java/org/slotbook/spring/app/HostApp.java"));
        String code = source.split("// --- outside the transaction \\(README\\) ---\n")[1].split("\n\\s*// --- end ---")[0];
        String section = section();
        int at = section.indexOf("### Host transactions");
        String snippet = section.substring(section.indexOf("```java\n", at) + 8);
        snippet = snippet.substring(0, snippet.indexOf("```"));
        assertThat(lines(snippet)).isEqualTo(lines(code));
    }

    @Test
    void theExampleServicesSettingsAreQuotedAsTheyAre() throws Exception {
        String file = Files.readString(ROOT.resolve("booking-examples/src/main/resources/application.properties"));
        String section = section();
        String quoted = section.split("<!-- example: booking-examples/src/main/resources/application.properties -->\n"
                + "```properties\n")[1];
        quoted = quoted.substring(0, quoted.indexOf("```"));
        assertThat(quoted).isEqualTo(file);
        // the readiness advice is what the service runs with
        assertThat(file).contains("management.endpoint.health.probes.enabled=true",
                "management.endpoint.health.group.readiness.include=readinessState,db,slotbook");
    }

    private static List<String> lines(String text) {
        return text.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.toList());
    }
}
