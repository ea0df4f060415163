import CDNNL
import Glibc
import Synchronization

/// oneDNN's matrix products (`matmul`) and row-wise softmax for the encoder, made once for each
/// number of tokens and kept: the dense layers' for the rows of a pass (all its sequences), the
/// attention's for the rows of one sequence.
///
/// A primitive is immutable once made: several threads may run it at once. Each call brings its
/// own scratch space (the scratchpad is the caller's, never the library's), its own stream and
/// its own memory objects over its buffers, so nothing is shared but the primitives.
final class MatrixProducts: @unchecked Sendable {
    // @unchecked: the primitives are read-only after creation; the plans are behind their mutexes.
    private let engine: dnnl_engine_t
    private let hidden: Int
    private let heads: Int
    private let inner: Int
    /// Whether the dense layers' products run in int8 (``Arithmetic``): the model's weights are
    /// int8 and this processor has VNNI instructions.
    let usesInt8: Bool
    /// oneDNN's own layout for the int8 weights of each dense product's shape, where the encoder
    /// packs them into it (``packedWeightsByteCount(inputs:outputs:)``); nil until first asked.
    private let packedLayouts: Mutex<[Shape: dnnl_memory_desc_t]?>
    /// The dense layers' primitives by number of rows, for weights as stored and packed.
    private let densePlans = Mutex<[Int: Dense]>([:])
    private let packedDensePlans = Mutex<[Int: Dense]>([:])
    private let attentionPlans = Mutex<[Int: Attention]>([:])

    /// The dense layers' primitives over `rows` tokens: float32 products, or int8 products whose
    /// source is the rows quantised to u8 around 128, with the scales, the bias (and the residual)
    /// applied after the integer product as binary post-ops (docs/int8-study.md, section B).
    final class Dense: @unchecked Sendable {
        /// `x·W + b` for the query, key and value projections at once, `[rows, 3 × hidden]`.
        let projection: Primitive
        /// `y += x·W + b`: the attention output and its residual connection.
        let projectionAdded: Primitive
        /// `GELU(x·W + b)` into the intermediate width.
        let expansion: Primitive
        /// `y += x·W + b` from the intermediate width: the output and its residual connection.
        let contractionAdded: Primitive
        /// The most scratch space any of them needs.
        let scratchBytes: Int

        init(_ primitives: [Primitive]) {
            (projection, projectionAdded, expansion, contractionAdded) =
                (primitives[0], primitives[1], primitives[2], primitives[3])
            scratchBytes = primitives.map(\.scratchBytes).max() ?? 0
        }
    }

    /// The attention's primitives over one sequence of `rows` tokens.
    final class Attention: @unchecked Sendable {
        /// Every head's `Q_h·K_hᵀ/√d` at once, from `[heads, rows, headSize]` and `[heads, headSize, rows]`.
        let scores: Primitive
        /// Softmax of each row of the scores, in place.
        let softmax: Primitive
        /// Every head's `softmax·V_h`, into `[heads, rows, headSize]`.
        let context: Primitive
        /// The most scratch space any of them needs.
        let scratchBytes: Int

        init(_ primitives: [Primitive]) {
            (scores, softmax, context) = (primitives[0], primitives[1], primitives[2])
            scratchBytes = primitives.map(\.scratchBytes).max() ?? 0
        }
    }

    /// One primitive and the layout of what it reads and writes.
    final class Primitive: @unchecked Sendable {
        let primitive: dnnl_primitive_t
        let descriptors: [Int32: dnnl_memory_desc_t]
        let scratchpad: dnnl_memory_desc_t
        let scratchBytes: Int

        init(_ primitive: dnnl_primitive_t, descriptors: [Int32: dnnl_memory_desc_t], scratchpad: dnnl_memory_desc_t) {
            self.primitive = primitive
            self.descriptors = descriptors
            var scratchpad = scratchpad
            self.scratchpad = scratchpad
            scratchBytes = dnnl.memory_desc_get_size(&scratchpad)
        }

        deinit { _ = dnnl.primitive_destroy(primitive) }
    }

    /// The number of inputs and outputs of a dense product.
    struct Shape: Hashable {
        let inputs: Int
        let outputs: Int
    }

    /// `int8` says whether the weights are int8 and the caller allows int8 arithmetic: it is used
    /// where the processor has VNNI (``runsInt8Fast``).
    ///
    /// - Throws: ``EmbedError/matrixLibraryMissing(reason:)`` when oneDNN cannot be loaded,
    ///   ``EmbedError/unsupportedProcessor`` when it cannot run here.
    init(hidden: Int, heads: Int, inner: Int, int8: Bool) throws(EmbedError) {
        try loadLibrary()
        oneThread()
        noProfilerHooks()
        var engine: dnnl_engine_t?
        guard dnnl.engine_create(&engine, dnnl_cpu, 0) == dnnl_success, let engine else {
            throw .unsupportedProcessor
        }
        self.engine = engine
        (self.hidden, self.heads, self.inner) = (hidden, heads, inner)
        usesInt8 = int8 && Self.runsInt8Fast
        packedLayouts = Mutex(usesInt8 ? nil : [:])
    }

    /// The bytes the int8 weights of a product of this shape take packed into oneDNN's layout
    /// (``VNNIWeights/pack(_:inputs:outputs:into:)``); nil when they are to be read as stored.
    /// Asked for the first time, it asks oneDNN which layouts it wants (a millisecond or two, which
    /// a process that embeds once never pays).
    func packedWeightsByteCount(inputs: Int, outputs: Int) -> Int? {
        let layouts = packedLayouts.withLock { layouts in
            if let layouts { return layouts }
            var made: [Shape: dnnl_memory_desc_t] = [:]
            for shape in [
                Shape(inputs: hidden, outputs: 3 * hidden), Shape(inputs: hidden, outputs: hidden),
                Shape(inputs: hidden, outputs: inner), Shape(inputs: inner, outputs: hidden),
            ] {
                made[shape] = packedLayout(shape)
            }
            layouts = made
            return made
        }
        guard var layout = layouts[Shape(inputs: inputs, outputs: outputs)] else { return nil }
        return dnnl.memory_desc_get_size(&layout)
    }

    /// The layout oneDNN's int8 product of this shape would read its weights in if it could choose
    /// (`dnnl_format_tag_any`), when it is the one ``VNNIWeights`` packs: the weights stored as
    /// `[inputs, outputs]` are copied into it on every product otherwise, half of a short query's
    /// product time (docs/int8.md). The layout is the same for every number of rows; on a
    /// processor where oneDNN chooses another (its AVX2-VNNI kernel reads them as stored), nil.
    private func packedLayout(_ shape: Shape) -> dnnl_memory_desc_t? {
        guard shape.inputs % VNNIWeights.inputBlock == 0, shape.outputs % VNNIWeights.outputBlock == 0 else {
            return nil
        }
        var source = Self.plain([1, shape.inputs], dnnl_u8)
        var destination = Self.plain([1, shape.outputs])
        var chosen = Self.layout([shape.inputs, shape.outputs], dnnl_s8, dnnl_format_tag_any)
        var descriptor = dnnl_matmul_desc_t()
        check(dnnl.matmul_desc_init(&descriptor, &source, &chosen, nil, &destination), "matmul descriptor")
        let withSourceZeroPoint: (dnnl_primitive_attr_t?) -> Void = { Self.setZeroPoint(Self.sourceZeroPoint, $0) }
        var weights = withDescription(&descriptor, attributes: withSourceZeroPoint) { description in
            dnnl.primitive_desc_query_md(description, dnnl_query_weights_md, 0)!.pointee
        }
        var packed = Self.layout([shape.inputs, shape.outputs], dnnl_s8, VNNIWeights.formatTag)
        packed.extra.flags |= UInt64(dnnl_memory_extra_flag_compensation_conv_asymmetric_src.rawValue)
        packed.extra.asymm_compensation_mask = VNNIWeights.compensationMask
        guard dnnl.memory_desc_equal(&weights, &packed) != 0,
            dnnl.memory_desc_get_size(&packed) >= VNNIWeights.byteCount(inputs: shape.inputs, outputs: shape.outputs)
        else { return nil }
        return packed
    }

    /// Whether oneDNN's int8 products are fast and exact here: with VNNI (AVX-512 VNNI, or AVX-VNNI
    /// on AVX2 machines), whose instructions add u8 × s8 products into 32 bits. Without it,
    /// oneDNN's AVX2 kernel adds pairs of them in 16 bits, which saturate and give wrong results
    /// (docs/int8-study.md, section B), and the weights are widened to float32 instead.
    /// `DNNL_MAX_CPU_ISA` (oneDNN's own setting) lowers what is used, as it lowers oneDNN.
    static var runsInt8Fast: Bool {
        let isa = dnnl.get_effective_cpu_isa().rawValue
        let vnni = [dnnl_cpu_isa_avx512_core_vnni.rawValue, dnnl_cpu_isa_avx2_vnni.rawValue]
        return vnni.contains { isa & $0 == $0 }
    }

    deinit {
        densePlans.withLock { $0.removeAll() }
        packedDensePlans.withLock { $0.removeAll() }
        attentionPlans.withLock { $0.removeAll() }
        _ = dnnl.engine_destroy(engine)
    }

    /// The dense layers' primitives for `rows` tokens, reading the int8 weights packed (where
    /// ``packedWeightsByteCount(inputs:outputs:)`` gave a size) or as stored: made on first use,
    /// then kept.
    func dense(rows: Int, packed: Bool) -> Dense {
        if packed { return plan(rows, in: packedDensePlans) { Dense(makeDense(rows: $0, packed: true)) } }
        return plan(rows, in: densePlans) { Dense(makeDense(rows: $0, packed: false)) }
    }

    /// The attention's primitives for a sequence of `rows` tokens: made on first use, then kept.
    func attention(rows: Int) -> Attention {
        plan(rows, in: attentionPlans) { Attention(makeAttention(rows: $0)) }
    }

    /// The plan for `rows` in `plans`, made and kept when missing. Two threads meeting a new
    /// count at once may both make it; the first kept wins.
    private func plan<Plan: Sendable>(_ rows: Int, in plans: borrowing Mutex<[Int: Plan]>, make: (Int) -> Plan) -> Plan
    {
        oneThread()
        if let plan = plans.withLock({ $0[rows] }) { return plan }
        let plan = make(rows)
        return plans.withLock { plans in
            if let existing = plans[rows] { return existing }
            plans[rows] = plan
            return plan
        }
    }

    private func makeDense(rows: Int, packed: Bool) -> [Primitive] {
        if usesInt8 { return makeQuantizedDense(rows: rows, packed: packed) }
        func linear(inputs: Int, outputs: Int, postOps: [PostOp]) -> Primitive {
            matmul(
                source: plain([rows, inputs]),
                // Stored [inputs, outputs] (scripts/convert-model.py), read in place. PyTorch's
                // [outputs, inputs] read transposed made oneDNN copy each matrix into its own
                // layout on every product: 27 µs of a 35 µs product for 3 tokens (384 × 384).
                weights: plain([inputs, outputs]),
                bias: plain([1, outputs]),
                destination: plain([rows, outputs]),
                postOps: postOps)
        }
        return [
            linear(inputs: hidden, outputs: 3 * hidden, postOps: []),
            linear(inputs: hidden, outputs: hidden, postOps: [.sum]),
            linear(inputs: hidden, outputs: inner, postOps: [.gelu]),
            linear(inputs: inner, outputs: hidden, postOps: [.sum]),
        ]
    }

    /// The int8 dense products: u8 `[rows, inputs]` (the rows quantised, 128 standing for 0) × s8
    /// `[inputs, outputs]` into float32, then `× scales` (each row's scale times each column's),
    /// `+ bias`, and GELU or `+ residual`. The scales are a full `[rows, outputs]` table: oneDNN
    /// 2.6 runs a `[rows, 1]` one in its reference kernel, 2,000 times slower. The residual is
    /// added into another buffer, not by `sum`, which falls to a reference kernel too.
    private func makeQuantizedDense(rows: Int, packed: Bool) -> [Primitive] {
        let layouts = packed ? (packedLayouts.withLock { $0 } ?? [:]) : [:]
        func linear(inputs: Int, outputs: Int, last: PostOp?) -> Primitive {
            let table = plain([rows, outputs])
            let postOps: [PostOp] = [.multiply(table), .add(plain([1, outputs]))] + (last.map { [$0] } ?? [])
            let weights = layouts[Shape(inputs: inputs, outputs: outputs)] ?? plain([inputs, outputs], dnnl_s8)
            return matmul(
                source: plain([rows, inputs], dnnl_u8), weights: weights, bias: nil,
                destination: table, postOps: postOps, sourceZeroPoint: Self.sourceZeroPoint)
        }
        let residual = PostOp.add(plain([rows, hidden]))
        return [
            linear(inputs: hidden, outputs: 3 * hidden, last: nil),
            linear(inputs: hidden, outputs: hidden, last: residual),
            linear(inputs: hidden, outputs: inner, last: .gelu),
            linear(inputs: inner, outputs: hidden, last: residual),
        ]
    }

    /// The u8 code that stands for 0 in the int8 products' quantised rows (``quantizeRow``).
    static let sourceZeroPoint: Int32 = 128

    /// The argument of the binary post-op at `index` of a primitive's post-ops (oneDNN's
    /// `DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1`, a macro Swift cannot call).
    static func postOpOperand(_ index: Int) -> Int32 {
        Int32(DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE) * Int32(index + 1) | DNNL_ARG_SRC_1
    }

    private func makeAttention(rows: Int) -> [Primitive] {
        let headSize = hidden / heads
        // The heads' blocks copied out dense, [heads, rows, headSize] (keys transposed, [heads,
        // headSize, rows]): strided in place, oneDNN takes its generic GEMM, whose kernels it
        // generates on first use for 80 ms of every one-shot process; dense, the same brgemm
        // kernels as the linear layers.
        let byHead = plain([heads, rows, headSize])
        let scoresLayout = plain([heads, rows, rows])
        return [
            matmul(
                source: byHead, weights: plain([heads, headSize, rows]), bias: nil,
                destination: scoresLayout, postOps: [], scale: 1 / Float(headSize).squareRoot()),
            softmax(scoresLayout, axis: 2),
            matmul(source: scoresLayout, weights: byHead, bias: nil, destination: byHead, postOps: []),
        ]
    }

    enum PostOp {
        /// Adds what the destination held.
        case sum
        case gelu
        /// Multiplies by, or adds, an operand of this layout, broadcast over the destination.
        case multiply(dnnl_memory_desc_t)
        case add(dnnl_memory_desc_t)
    }

    private func matmul(
        source: dnnl_memory_desc_t, weights: dnnl_memory_desc_t, bias: dnnl_memory_desc_t?,
        destination: dnnl_memory_desc_t, postOps: [PostOp], scale: Float = 1, sourceZeroPoint: Int32? = nil
    ) -> Primitive {
        var (source, weights, destination) = (source, weights, destination)
        var descriptor = dnnl_matmul_desc_t()
        let status: dnnl_status_t
        if var bias {
            status = dnnl.matmul_desc_init(&descriptor, &source, &weights, &bias, &destination)
        } else {
            status = dnnl.matmul_desc_init(&descriptor, &source, &weights, nil, &destination)
        }
        check(status, "matmul descriptor")
        var arguments = [DNNL_ARG_SRC: source, DNNL_ARG_WEIGHTS: weights, DNNL_ARG_DST: destination]
        if let bias { arguments[DNNL_ARG_BIAS] = bias }
        for (index, operation) in postOps.enumerated() {
            switch operation {
            case .multiply(let operand), .add(let operand): arguments[Self.postOpOperand(index)] = operand
            case .sum, .gelu: break
            }
        }
        return primitive(&descriptor, arguments: arguments) { attributes in
            var operations: dnnl_post_ops_t?
            check(dnnl.post_ops_create(&operations), "post-ops")
            for operation in postOps {
                switch operation {
                case .sum: check(dnnl.post_ops_append_sum(operations, 1), "sum post-op")
                case .gelu:
                    check(dnnl.post_ops_append_eltwise(operations, 1, dnnl_eltwise_gelu_erf, 0, 0), "GELU post-op")
                case .multiply(var operand):
                    check(dnnl.post_ops_append_binary(operations, dnnl_binary_mul, &operand), "multiply post-op")
                case .add(var operand):
                    check(dnnl.post_ops_append_binary(operations, dnnl_binary_add, &operand), "add post-op")
                }
            }
            if let sourceZeroPoint { Self.setZeroPoint(sourceZeroPoint, attributes) }
            check(dnnl.primitive_attr_set_post_ops(attributes, operations), "post-ops")
            _ = dnnl.post_ops_destroy(operations)
            if scale != 1 {
                var scale = scale
                check(dnnl.primitive_attr_set_output_scales(attributes, 1, 0, &scale), "scale")
            }
        }
    }

    private func softmax(_ layout: dnnl_memory_desc_t, axis: Int32) -> Primitive {
        var layout = layout
        var descriptor = dnnl_softmax_desc_t()
        check(dnnl.softmax_forward_desc_init(&descriptor, dnnl_forward_inference, &layout, axis), "softmax descriptor")
        return primitive(&descriptor, arguments: [DNNL_ARG_SRC: layout, DNNL_ARG_DST: layout]) { _ in }
    }

    private func primitive<Descriptor>(
        _ descriptor: inout Descriptor, arguments: [Int32: dnnl_memory_desc_t],
        attributes configure: (dnnl_primitive_attr_t?) -> Void
    ) -> Primitive {
        withDescription(&descriptor, attributes: configure) { description in
            var primitive: dnnl_primitive_t?
            check(dnnl.primitive_create(&primitive, description), "primitive")
            let scratchpad = dnnl.primitive_desc_query_md(description, dnnl_query_scratchpad_md, 0)!.pointee
            return Primitive(primitive!, descriptors: arguments, scratchpad: scratchpad)
        }
    }

    /// Calls `body` with oneDNN's description of the operation `descriptor` with the attributes
    /// `configure` sets (the scratch space always the caller's, so that threads running the same
    /// primitive never share one): what a primitive is made from, and what says which layouts
    /// it chose.
    private func withDescription<Descriptor, Result>(
        _ descriptor: inout Descriptor, attributes configure: (dnnl_primitive_attr_t?) -> Void,
        _ body: (dnnl_primitive_desc_t?) -> Result
    ) -> Result {
        var attributes: dnnl_primitive_attr_t?
        check(dnnl.primitive_attr_create(&attributes), "attributes")
        defer { _ = dnnl.primitive_attr_destroy(attributes) }
        check(dnnl.primitive_attr_set_scratchpad_mode(attributes, dnnl_scratchpad_mode_user), "scratchpad")
        configure(attributes)
        var description: dnnl_primitive_desc_t?
        check(dnnl.primitive_desc_create(&description, &descriptor, attributes, engine, nil), "primitive descriptor")
        defer { _ = dnnl.primitive_desc_destroy(description) }
        return body(description)
    }

    /// Sets the u8 code that stands for 0 in a product's source rows.
    private static func setZeroPoint(_ zeroPoint: Int32, _ attributes: dnnl_primitive_attr_t?) {
        var zeroPoint = zeroPoint
        check(dnnl.primitive_attr_set_zero_points(attributes, DNNL_ARG_SRC, 1, 0, &zeroPoint), "zero point")
    }

    /// A row-major matrix (or stack of matrices) of float32, or of `type`.
    private func plain(_ dimensions: [Int], _ type: dnnl_data_type_t = dnnl_f32) -> dnnl_memory_desc_t {
        Self.plain(dimensions, type)
    }

    /// `values` as a `dnnl_dims_t`: an array of DNNL_MAX_NDIMS (12), passed as a pointer to its first.
    private static func dims(_ values: [Int]) -> [Int64] {
        values.map(Int64.init) + Array(repeating: 0, count: 12 - values.count)
    }

    /// A matrix of `type` in one of oneDNN's named layouts (or `dnnl_format_tag_any`: its choice).
    private static func layout(
        _ dimensions: [Int], _ type: dnnl_data_type_t, _ tag: dnnl_format_tag_t
    ) -> dnnl_memory_desc_t {
        var descriptor = dnnl_memory_desc_t()
        check(
            dnnl.memory_desc_init_by_tag(&descriptor, Int32(dimensions.count), dims(dimensions), type, tag),
            "memory layout")
        return descriptor
    }

    private static func plain(_ dimensions: [Int], _ type: dnnl_data_type_t = dnnl_f32) -> dnnl_memory_desc_t {
        let strides = dimensions.indices.map { index in dimensions[(index + 1)...].reduce(1, *) }
        var descriptor = dnnl_memory_desc_t()
        let (dims, steps) = (Self.dims(dimensions), Self.dims(strides))
        check(
            dnnl.memory_desc_init_by_strides(&descriptor, Int32(dimensions.count), dims, type, steps),
            "memory layout")
        return descriptor
    }

    /// One call's stream, scratch space and memory objects.
    final class Run {
        private let engine: dnnl_engine_t
        private let stream: dnnl_stream_t
        private let scratch: UnsafeMutableRawPointer
        private let scratchBytes: Int

        fileprivate init(engine: dnnl_engine_t, scratchBytes: Int) {
            self.engine = engine
            var stream: dnnl_stream_t?
            check(dnnl.stream_create(&stream, engine, dnnl_stream_default_flags.rawValue), "stream")
            self.stream = stream!
            self.scratchBytes = max(scratchBytes, 64)
            scratch = UnsafeMutableRawPointer.allocate(byteCount: self.scratchBytes, alignment: 64)
        }

        deinit {
            _ = dnnl.stream_wait(stream)
            _ = dnnl.stream_destroy(stream)
            scratch.deallocate()
        }

        /// Runs `primitive` over the buffers given by argument (`DNNL_ARG_SRC` and so on).
        func callAsFunction(_ primitive: Primitive, _ buffers: [Int32: UnsafeRawPointer]) {
            var memories: [dnnl_exec_arg_t] = []
            memories.reserveCapacity(buffers.count + 1)
            defer { for memory in memories { _ = dnnl.memory_destroy(memory.memory) } }
            func add(_ argument: Int32, _ descriptor: dnnl_memory_desc_t, _ handle: UnsafeRawPointer) {
                var descriptor = descriptor
                var memory: dnnl_memory_t?
                check(
                    dnnl.memory_create(&memory, &descriptor, engine, UnsafeMutableRawPointer(mutating: handle)),
                    "memory")
                memories.append(dnnl_exec_arg_t(arg: argument, memory: memory!))
            }
            for (argument, buffer) in buffers {
                add(argument, primitive.descriptors[argument]!, buffer)
            }
            add(DNNL_ARG_SCRATCHPAD, primitive.scratchpad, scratch)
            check(dnnl.primitive_execute(primitive.primitive, stream, Int32(memories.count), memories), "execute")
        }
    }

    /// A call's stream and scratch space, enough for `scratchBytes` (the most its plans need).
    func run(scratchBytes: Int) -> Run {
        Run(engine: engine, scratchBytes: scratchBytes)
    }
}

/// oneDNN's functions, from the library ``MatrixProducts/init(hidden:heads:inner:)`` loads (and
/// throws without): everything here that calls them runs after it.
private let dnnl: xkcd_dnnl_functions = {
    var unused: CChar = 0
    guard let functions = xkcd_dnnl_load(&unused, 0) else { preconditionFailure("oneDNN called before it was loaded") }
    return functions.pointee
}()

/// Opens oneDNN, once per process, when the first encoder is made: a search that embeds nothing
/// never loads it (Sources/CDNNL).
private func loadLibrary() throws(EmbedError) {
    var reason = [CChar](repeating: 0, count: 128)
    guard xkcd_dnnl_load(&reason, reason.count) != nil else {
        throw .matrixLibraryMissing(reason: reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }
}

/// oneDNN takes its thread count from OpenMP's setting for the calling thread, which is two (the
/// cores) unless set: one, so that a query starts no thread team. A second thread does not pay
/// for a query's small matrices, OpenMP's waiting threads spin for a while after each product
/// (a one-shot process spent 5 times its CPU in them), and the server and the indexer run their
/// own calls in parallel. Set before anything of oneDNN runs on a thread: making a primitive
/// runs in parallel too.
private func oneThread() {
    dnnl.omp_set_num_threads(1)
}

/// oneDNN registers every kernel it generates with Intel VTune's JIT API unless told otherwise,
/// and looking for VTune's collector tried to open libJitPI.so in 70 directories of every
/// process that embeds. Off unless `DNNL_JIT_PROFILE` (or `ONEDNN_JIT_PROFILE`) asks for it, as
/// someone profiling would.
private func noProfilerHooks() {
    guard getenv("DNNL_JIT_PROFILE") == nil, getenv("ONEDNN_JIT_PROFILE") == nil else { return }
    _ = dnnl.set_jit_profiling_flags(0)
}

/// The encoder's own calls are made with shapes checked against the configuration, so a failure
/// here is a programming error (or memory exhausted), not bad input.
private func check(_ status: dnnl_status_t, _ what: String) {
    precondition(status == dnnl_success, "oneDNN failed to make or run the \(what) (status \(status.rawValue))")
}
