package io.engram.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A command's input file or folder: one that does not exist is refused while the command line is parsed, so the
 * user reads one line naming the option ("Invalid value for option '--data': no such file: …"), not a stack
 * trace from deep inside the command.
 */
public final class ExistingPath implements ITypeConverter<Path> {

    @Override
    public Path convert(String value) {
        Path path = Path.of(value);
        if (!Files.exists(path)) {
            throw new TypeConversionException("no such file or directory: " + path.toAbsolutePath().normalize());
        }
        if (!Files.isReadable(path)) {
            throw new TypeConversionException("not readable: " + path.toAbsolutePath().normalize());
        }
        return path;
    }
}
