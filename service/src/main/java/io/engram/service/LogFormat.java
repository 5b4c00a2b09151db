package io.engram.service;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.ConsoleAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.layout.template.json.JsonTemplateLayout;

/**
 * The {@code logging.format} setting of the processes Engram starts (the memory service, {@code ./engram up},
 * {@code run}, {@code serve}): {@code text} keeps the configured layout; {@code json} writes one JSON object per
 * line (docs/operations.md, "Logs"): timestamp, level, logger, thread, message, the error's stack trace, and the
 * context of the line: tenant and record coordinates on the lines about a record. Levels and targets stay as
 * configured: each console appender keeps its name and target and only changes layout.
 */
public final class LogFormat {

    /** The setting's key. */
    public static final String KEY = "logging.format";
    private static final String TEMPLATE = "classpath:engram/log-event.json";

    private LogFormat() {
    }

    /** Applies {@code value} ({@code text} or {@code json}, any case; null is {@code text}). */
    public static void apply(String value) {
        String format = value == null ? "text" : value.strip().toLowerCase(Locale.ROOT);
        switch (format) {
            case "text" -> {
            }
            case "json" -> json();
            default -> throw new IllegalArgumentException(KEY + ": " + value + " (use text or json)");
        }
    }

    private static void json() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        JsonTemplateLayout layout = JsonTemplateLayout.newBuilder().setConfiguration(config)
                .setEventTemplateUri(TEMPLATE).build();
        List<LoggerConfig> loggers = new ArrayList<>(config.getLoggers().values());
        loggers.add(config.getRootLogger());
        for (Appender appender : List.copyOf(config.getAppenders().values())) {
            if (!(appender instanceof ConsoleAppender console)) {
                continue;
            }
            ConsoleAppender replacement = ConsoleAppender.newBuilder().setName(console.getName())
                    .setTarget(console.getTarget()).setFollow(true).setLayout(layout).setConfiguration(config).build();
            replacement.start();
            for (LoggerConfig logger : loggers) {
                if (logger.getAppenders().containsKey(console.getName())) {
                    logger.removeAppender(console.getName());
                    logger.addAppender(replacement, null, null);
                }
            }
            config.getAppenders().remove(console.getName());
            config.addAppender(replacement);
            console.stop();
        }
        context.updateLoggers();
    }
}
