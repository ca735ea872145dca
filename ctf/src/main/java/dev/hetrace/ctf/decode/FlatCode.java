package dev.hetrace.ctf.decode;

import static java.lang.constant.ConstantDescs.CD_String;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.hetrace.ctf.api.StreamDecodingException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A flat plan turned into straight-line bytecode: one hidden class per scope whose
 * {@code run} calls the decoder's small step methods with the plan's sizes, alignments and
 * byte orders as constants, so that the JIT compiles each scope into code specialised for its
 * layout, with no dispatch between fields. Same tape and state as walking the scope's nodes.
 */
final class FlatCode {
    /** A compiled scope (a class, not an interface: the call of many scopes from one site is a vtable call). */
    abstract static class Decoder {
        abstract int run(StreamDecoder d, FlatScope f, long[] tape, int len) throws StreamDecodingException;
    }

    private static final ClassDesc CD_DECODER = ClassDesc.of("dev.hetrace.ctf.decode.StreamDecoder");
    private static final ClassDesc CD_FLAT = ClassDesc.of("dev.hetrace.ctf.decode.FlatScope");
    private static final ClassDesc CD_NODE = ClassDesc.of("dev.hetrace.ctf.decode.Node");
    private static final ClassDesc CD_RUNNER = ClassDesc.of("dev.hetrace.ctf.decode.FlatCode$Decoder");
    private static final MethodTypeDesc RUN =
            MethodTypeDesc.of(CD_int, CD_DECODER, CD_FLAT, CD_long.arrayType(), CD_int);

    private static final int D = 1;
    private static final int F = 2;
    private static final int T = 3;
    private static final int LEN = 4;
    private static final int V = 5;
    private static final int ADDR = 7;
    private static final int OPTION = 9;

    private FlatCode() {}

    /** Compiled scopes of this process, limited so that class space stays small. */
    private static final AtomicInteger COMPILED = new AtomicInteger();

    private static final int MAX_COMPILED = 4096;
    /** Tests set this: a scope that cannot be compiled is then a failure, not a quiet fallback to walking. */
    private static final boolean STRICT = Boolean.getBoolean("hetrace.decode.compileStrict");

    static boolean mayCompileMore() {
        return COMPILED.get() < MAX_COMPILED;
    }

    /**
     * Compiled scopes by their bytecode: scopes of the same layout (the same event in the traces
     * of a board's cores, whose metadata differ only in their environment) share one class, so
     * the JIT compiles it once and a call site that runs them stays monomorphic. Bounded: small
     * classes only, and a limited number of them, since the cache keeps them.
     */
    private static final ConcurrentHashMap<ByteBuffer, Decoder> SHARED = new ConcurrentHashMap<>();

    private static final int MAX_SHARED = 1024;
    private static final int MAX_SHARED_BYTES = 8192;

    /** The compiled scope, or null if it cannot be compiled (the plan then runs as is). */
    static Decoder compile(FlatScope f, String scope, MethodHandles.Lookup host) {
        if (f.op.length > 2000) {
            return null; // a method must stay small enough to compile well
        }
        try {
            byte[] bytes = ClassFile.of().build(ClassDesc.of("dev.hetrace.ctf.decode.FlatScopeCode"), cb -> {
                cb.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SUPER);
                cb.withSuperclass(CD_RUNNER);
                cb.withMethodBody("<init>", MethodTypeDesc.of(CD_void), ClassFile.ACC_PUBLIC, c -> {
                    c.aload(0);
                    c.invokespecial(CD_RUNNER, "<init>", MethodTypeDesc.of(CD_void));
                    c.return_();
                });
                cb.withMethodBody("run", RUN, 0, c -> body(c, f, scope));
            });
            ByteBuffer key = ByteBuffer.wrap(bytes);
            Decoder shared = SHARED.get(key);
            if (shared != null) {
                return shared;
            }
            if (COMPILED.incrementAndGet() > MAX_COMPILED) {
                return null; // class space must stay small
            }
            MethodHandles.Lookup l = host.defineHiddenClass(bytes, true, MethodHandles.Lookup.ClassOption.NESTMATE);
            Decoder d = (Decoder) l.findConstructor(l.lookupClass(), MethodType.methodType(void.class))
                    .invoke();
            if (bytes.length <= MAX_SHARED_BYTES && SHARED.size() < MAX_SHARED) {
                Decoder raced = SHARED.putIfAbsent(key, d);
                return raced != null ? raced : d;
            }
            return d;
        } catch (Throwable e) {
            if (STRICT) {
                throw new IllegalStateException("cannot compile the " + scope + " plan", e);
            }
            return null;
        }
    }

    private static void body(CodeBuilder c, FlatScope f, String scope) {
        int n = f.op.length;
        Label[] at = new Label[n + 1];
        for (int i = 0; i <= n; i++) {
            at[i] = c.newLabel();
        }
        for (int pc = 0; pc < n; pc++) {
            c.labelBinding(at[pc]);
            switch (f.op[pc]) {
                case FlatScope.INT -> {
                    c.aload(D)
                            .ldc(f.arg[pc])
                            .ldc(f.size[pc])
                            .ldc(f.bigEndian[pc] ? 1 : 0)
                            .ldc(f.signed[pc] ? 1 : 0)
                            .ldc(scope);
                    c.invokevirtual(
                            CD_DECODER,
                            "stepInt",
                            MethodTypeDesc.of(CD_long, CD_int, CD_int, CD_boolean, CD_boolean, CD_String));
                    c.lstore(V);
                    store(c, () -> c.lload(V));
                    if (f.effects[pc]) {
                        // What stepEffects does, decided now: only the calls this field needs.
                        Node nd = f.node[pc];
                        if (nd.register >= 0) {
                            c.aload(D).ldc(nd.register).lload(V);
                            c.invokevirtual(CD_DECODER, "stepRegister", MethodTypeDesc.of(CD_void, CD_int, CD_long));
                        }
                        if (nd.clock >= 0 && !nd.signed && nd.role != Node.ROLE_TIMESTAMP_END) {
                            c.aload(D).lload(V).ldc(f.size[pc]);
                            c.invokevirtual(CD_DECODER, "updateClock", MethodTypeDesc.of(CD_void, CD_long, CD_int));
                        }
                        if (nd.role == Node.ROLE_EVENT_ID) {
                            c.aload(D).lload(V);
                            c.invokevirtual(CD_DECODER, "stepEventId", MethodTypeDesc.of(CD_void, CD_long));
                        }
                    }
                }
                case FlatScope.FLOAT -> {
                    c.aload(D)
                            .ldc(f.arg[pc])
                            .ldc(f.size[pc])
                            .ldc(f.bigEndian[pc] ? 1 : 0)
                            .ldc(scope);
                    c.invokevirtual(
                            CD_DECODER, "stepFloat", MethodTypeDesc.of(CD_long, CD_int, CD_int, CD_boolean, CD_String));
                    c.lstore(V);
                    store(c, () -> c.lload(V));
                }
                case FlatScope.STRING -> {
                    c.aload(D).ldc(scope);
                    c.invokevirtual(CD_DECODER, "stepString", MethodTypeDesc.of(CD_long, CD_String));
                    c.lstore(V);
                    store(c, () -> c.lload(V));
                    store(c, () -> c.aload(D).invokevirtual(CD_DECODER, "stringLength", MethodTypeDesc.of(CD_long)));
                }
                case FlatScope.ALIGN -> {
                    c.aload(D).ldc(f.arg[pc]).ldc(scope);
                    c.invokevirtual(CD_DECODER, "stepAlign", MethodTypeDesc.of(CD_void, CD_int, CD_String));
                }
                case FlatScope.VARIANT -> {
                    int[] options = f.optionStep[pc];
                    Node nd = f.node[pc];
                    Label general = c.newLabel();
                    if (nd.selector != null && nd.sourceRegister >= 0) {
                        // Tags 0 to 63 (event header ids) jump straight to their option.
                        c.aload(D).ldc(nd.sourceRegister);
                        c.invokevirtual(CD_DECODER, "register", MethodTypeDesc.of(CD_long, CD_int));
                        c.lstore(V);
                        c.lload(V).ldc(64L).lcmp();
                        c.ifge(general);
                        c.lload(V).lconst_0().lcmp();
                        c.iflt(general);
                        List<SwitchCase> small = new ArrayList<>();
                        List<Runnable> blocks = new ArrayList<>();
                        for (int k = 0; k < 64; k++) {
                            int o = nd.selector.select(k);
                            if (o >= 0 && o < options.length) {
                                Label l = c.newLabel();
                                small.add(SwitchCase.of(k, l));
                                int option = o;
                                blocks.add(() -> {
                                    c.labelBinding(l);
                                    store(c, () -> c.ldc((long) option));
                                    c.goto_(at[options[option]]);
                                });
                            }
                        }
                        c.lload(V).l2i();
                        c.tableswitch(0, 63, general, small);
                        blocks.forEach(Runnable::run);
                    }
                    c.labelBinding(general);
                    c.aload(D);
                    node(c, pc);
                    c.ldc(scope);
                    c.invokevirtual(CD_DECODER, "stepVariant", MethodTypeDesc.of(CD_int, CD_NODE, CD_String));
                    c.istore(OPTION);
                    store(c, () -> c.iload(OPTION).i2l());
                    List<SwitchCase> cases = new ArrayList<>();
                    for (int o = 0; o < options.length; o++) {
                        cases.add(SwitchCase.of(o, at[options[o]]));
                    }
                    c.iload(OPTION);
                    c.tableswitch(0, options.length - 1, at[n], cases);
                }
                case FlatScope.JUMP -> c.goto_(at[f.arg[pc]]);
                case FlatScope.BLOCK -> {
                    Label done = at[pc + 1];
                    Label read = c.newLabel();
                    c.aload(D).ldc(f.blockBits[pc]).ldc(scope);
                    c.invokevirtual(CD_DECODER, "stepBlock", MethodTypeDesc.of(CD_long, CD_int, CD_String));
                    c.lstore(ADDR);
                    c.lload(ADDR).lconst_0().lcmp();
                    c.ifge(read);
                    // Does not fit: field by field, for the error the tree walk would give.
                    c.aload(D).aload(F).ldc(pc).aload(T).iload(LEN).ldc(scope);
                    c.invokevirtual(
                            CD_DECODER,
                            "blockFallback",
                            MethodTypeDesc.of(CD_int, CD_FLAT, CD_int, CD_long.arrayType(), CD_int, CD_String));
                    c.istore(LEN);
                    c.goto_(done);
                    c.labelBinding(read);
                    int[] offs = f.blockOffset[pc];
                    int[] reads = f.blockRead[pc];
                    for (int k = 0; k < offs.length; k++) {
                        int off = offs[k];
                        int r = reads[k];
                        store(c, () -> {
                            c.aload(D).lload(ADDR).ldc((long) off).ladd().ldc(r);
                            c.invokevirtual(CD_DECODER, "blockRead", MethodTypeDesc.of(CD_long, CD_long, CD_int));
                        });
                    }
                    c.aload(D).ldc(f.blockBits[pc]);
                    c.invokevirtual(CD_DECODER, "advance", MethodTypeDesc.of(CD_void, CD_int));
                }
                default -> throw new IllegalStateException("unknown step " + f.op[pc]);
            }
        }
        c.labelBinding(at[n]);
        c.iload(LEN);
        c.ireturn();
    }

    /** {@code f.node[pc]} on the stack. */
    private static void node(CodeBuilder c, int pc) {
        c.aload(F);
        c.getfield(CD_FLAT, "node", CD_NODE.arrayType());
        c.ldc(pc);
        c.aaload();
    }

    /** {@code tape[len++] = value}, the value pushed by {@code value}. */
    private static void store(CodeBuilder c, Runnable value) {
        c.aload(T).iload(LEN);
        value.run();
        c.lastore();
        c.iinc(LEN, 1);
    }
}
