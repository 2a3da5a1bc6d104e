package dev.tandem.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.expr.EvalError;
import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.row.Timestamp;
import dev.tandem.time.Frontier;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The documented JSON form of every frame kind, and the exact error of each kind of bad frame. */
class ProtocolJsonTest {

    private static final String U = "123e4567-e89b-12d3-a456-426614174000";
    private static final UUID UUID_U = UUID.fromString(U);

    private static String json(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }

    private static void assertCommandForm(String form, ComputeCommand expected) {
        String json = json(form);
        assertThat(ProtocolJson.parseCommand(json)).isEqualTo(expected);
        assertThat(ProtocolJson.write(expected)).isEqualTo(json);
    }

    private static void assertResponseForm(String form, ComputeResponse expected) {
        String json = json(form);
        assertThat(ProtocolJson.parseResponse(json)).isEqualTo(expected);
        assertThat(ProtocolJson.write(expected)).isEqualTo(json);
    }

    @Test
    void commandsHaveTheirDocumentedForms() {
        assertCommandForm("{'type':'Hello','nonce':'n-1'}", new ComputeCommand.Hello("n-1"));
        assertCommandForm("{'type':'CreateInstance','logging':{'interval_ms':'1000'},'parameters':{'max_result_rows':100000}}",
                new ComputeCommand.CreateInstance(Map.of("interval_ms", "1000"), ComputeParameters.DEFAULTS));
        assertCommandForm("{'type':'InitializationComplete'}", new ComputeCommand.InitializationComplete());
        assertCommandForm("{'type':'UpdateConfiguration','parameters':{}}", new ComputeCommand.UpdateConfiguration(ComputeParameters.UNSET));
        assertCommandForm("{'type':'CreateDataflow','dataflow':{'source_imports':{'u1':{'columns':[{'name':'a','type':'int64','nullable':true}]}},"
                        + "'index_imports':{},'objects_to_build':[{'id':'t1','plan':{'op':'get','id':'u1'}}],"
                        + "'index_exports':[{'id':'u9','object':'t1','key':[0]}],'as_of':0}}",
                new ComputeCommand.CreateDataflow(new DataflowDescription(Map.of("u1", new Schema(List.of(new Column("a", DatumType.INT64, true)))),
                        Map.of(), List.of(new DataflowDescription.BuildDesc("t1", new Plan.Get("u1", null))),
                        List.of(new DataflowDescription.IndexExport("u9", "t1", List.of(0))), 0, null)));
        assertCommandForm("{'type':'Schedule','id':'u9'}", new ComputeCommand.Schedule("u9"));
        assertCommandForm("{'type':'AllowCompaction','id':'u9','frontier':[5]}", new ComputeCommand.AllowCompaction("u9", Frontier.at(5)));
        assertCommandForm("{'type':'AllowCompaction','id':'u9','frontier':[]}", new ComputeCommand.AllowCompaction("u9", Frontier.EMPTY));
        assertCommandForm("{'type':'Peek','uuid':'" + U + "','target':'u9','timestamp':7,"
                        + "'literal_keys':{'types':['int64','string'],'rows':[[1,'a'],['9007199254740993',null]]},"
                        + "'mfp':{'filter':[{'call':'eq','args':[{'col':1},{'lit':'a','type':'string'}]}],'project':[0]},"
                        + "'finishing':{'order_by':[{'col':0,'desc':true,'nulls_last':false}],'limit':10,'offset':2},'max_result_rows':1000}",
                new ComputeCommand.Peek(UUID_U, "u9", 7,
                        List.of(Row.of(1L, "a"), Row.pack(List.of(DatumType.INT64, DatumType.STRING), Arrays.asList((1L << 53) + 1, null))),
                        new Mfp(List.of(), List.of(new Expr.Call(Func.EQ, List.of(new Expr.Col(1), new Expr.Lit("a", DatumType.STRING)), null)), List.of(0)),
                        new Finishing(List.of(new Plan.Ordering(0, true, false)), 10L, 2), 1000L));
        assertCommandForm("{'type':'Peek','uuid':'" + U + "','target':'u9','timestamp':7}",
                new ComputeCommand.Peek(UUID_U, "u9", 7, null, null, null, null));
        assertCommandForm("{'type':'CancelPeek','uuid':'" + U + "'}", new ComputeCommand.CancelPeek(UUID_U));
    }

    @Test
    void negativeZeroIsPackedAsZeroSoItIsWrittenAndParsedAsZero() {
        // PostgreSQL's float8: -0 = 0, one value; a row packs -0.0 as 0.0, so both forms parse to one row
        ComputeResponse expected = new ComputeResponse.PeekResponse(UUID_U, new ComputeResponse.Rows(
                List.of(Row.pack(List.of(DatumType.FLOAT64), Arrays.asList(0.0))),
                new ComputeResponse.ReadInfo(7, Frontier.at(8), Frontier.at(0), true, null)));
        String negative = json("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Rows','types':['float64'],'rows':[[-0.0]],"
                + "'info':{'timestamp':7,'upper':[8],'since':[0],'hydrated':true}}}");
        assertThat(ProtocolJson.parseResponse(negative)).isEqualTo(expected);
        assertThat(ProtocolJson.write(ProtocolJson.parseResponse(negative))).isEqualTo(negative.replace("-0.0", "0.0"));
    }

    @Test
    void responsesHaveTheirDocumentedForms() {
        assertResponseForm("{'type':'Frontiers','id':'u9','write_frontier':[8],'input_frontier':[]}",
                new ComputeResponse.Frontiers("u9", Frontier.at(8), Frontier.EMPTY));
        assertResponseForm("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Rows','types':['float64','timestamp','bool'],"
                        + "'rows':[['NaN','2024-01-02T03:04:05.123456Z',true],[0.0,null,null]],"
                        + "'info':{'timestamp':7,'upper':[8],'since':[0],'hydrated':true,'runtime':'interactive'}}}",
                new ComputeResponse.PeekResponse(UUID_U, new ComputeResponse.Rows(List.of(
                        Row.of(Double.NaN, Timestamp.parse("2024-01-02T03:04:05.123456Z"), true),
                        Row.pack(List.of(DatumType.FLOAT64, DatumType.TIMESTAMP, DatumType.BOOL), Arrays.asList(-0.0, null, null))),
                        new ComputeResponse.ReadInfo(7, Frontier.at(8), Frontier.at(0), true, "interactive"))));
        assertResponseForm("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Rows','types':[],'rows':[],"
                        + "'info':{'timestamp':7,'upper':[8],'since':[0],'hydrated':false}}}",
                new ComputeResponse.PeekResponse(UUID_U, new ComputeResponse.Rows(List.of(),
                        new ComputeResponse.ReadInfo(7, Frontier.at(8), Frontier.at(0), false, null))));
        assertResponseForm("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Error','kind':'failed','message':'division by zero',"
                        + "'code':'division_by_zero'}}",
                new ComputeResponse.PeekResponse(UUID_U, ComputeResponse.Error.failed(EvalError.Code.DIVISION_BY_ZERO, "division by zero")));
        assertResponseForm("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Error','kind':'before_since','message':'since 5'}}",
                new ComputeResponse.PeekResponse(UUID_U, new ComputeResponse.Error(ComputeResponse.ErrorKind.BEFORE_SINCE, "since 5")));
        assertResponseForm("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Canceled'}}",
                new ComputeResponse.PeekResponse(UUID_U, new ComputeResponse.Canceled()));
        assertResponseForm("{'type':'Status','kind':'hydrated','id':'u9','detail':'in 3 ms'}",
                new ComputeResponse.Status(ComputeResponse.StatusKind.HYDRATED, "u9", "in 3 ms"));
        assertResponseForm("{'type':'Status','kind':'hydrated'}", new ComputeResponse.Status(ComputeResponse.StatusKind.HYDRATED, null, null));
        assertResponseForm("{'type':'Status','kind':'dataflow_rejected','id':'t3','detail':'export id t3 already exists'}",
                new ComputeResponse.Status(ComputeResponse.StatusKind.DATAFLOW_REJECTED, "t3", "export id t3 already exists"));
        assertResponseForm("{'type':'Status','kind':'protocol_error'}", new ComputeResponse.Status(ComputeResponse.StatusKind.PROTOCOL_ERROR, null, null));
    }

    @Test
    void optionalFieldsMayBeAbsentOrNull() {
        assertThat(ProtocolJson.parseCommand(json("{'type':'CreateInstance'}")))
                .isEqualTo(new ComputeCommand.CreateInstance(Map.of(), ComputeParameters.UNSET));
        assertThat(ProtocolJson.parseCommand(json("{'type':'Peek','uuid':'" + U.toUpperCase() + "','target':'u9','timestamp':7,"
                        + "'literal_keys':null,'mfp':{},'finishing':{'order_by':[{'col':1}]},'max_result_rows':null}")))
                .isEqualTo(new ComputeCommand.Peek(UUID_U, "u9", 7, null, Mfp.identity(),
                        new Finishing(List.of(new Plan.Ordering(1, false, true)), null, 0), null));
        ComputeCommand.Peek noKeys = (ComputeCommand.Peek) ProtocolJson.parseCommand(
                json("{'type':'Peek','uuid':'" + U + "','target':'u9','timestamp':7,'literal_keys':{'types':['int64'],'rows':[]}}"));
        assertThat(noKeys.literalKeys()).isEmpty();
        assertThat(ProtocolJson.parseResponse(json("{'type':'Status','kind':'dataflow_failed','id':null,'detail':null}")))
                .isEqualTo(new ComputeResponse.Status(ComputeResponse.StatusKind.DATAFLOW_FAILED, null, null));
        assertThat(ProtocolJson.parseResponse(json("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Error','message':'m'}}")))
                .as("an error without a kind or a code (an older replica) is a data exception").isEqualTo(new ComputeResponse.PeekResponse(UUID_U,
                        ComputeResponse.Error.failed(EvalError.Code.DATA_EXCEPTION, "m")));
    }

    // ---- errors

    private static void assertCommandError(String form, String message) {
        assertThatThrownBy(() -> ProtocolJson.parseCommand(json(form))).isInstanceOf(ProtocolException.class).hasMessage(message);
    }

    private static void assertResponseError(String form, String message) {
        assertThatThrownBy(() -> ProtocolJson.parseResponse(json(form))).isInstanceOf(ProtocolException.class).hasMessage(message);
    }

    @Test
    void malformedJsonIsRejectedWithItsLocation() {
        assertCommandError("{'type':'Hello',", "$: malformed JSON at line 1, column 17: Unexpected end-of-input within/between Object entries");
        assertCommandError("{'type':'Hello','nonce':'a','nonce':'b'}", "$: malformed JSON at line 1, column 36: Duplicate Object property \"nonce\"");
        assertCommandError("{'type':'InitializationComplete'} {}", "$: malformed JSON at line 1, column 35: Trailing token (`JsonToken.START_OBJECT`) found after value (bound as `tools.jackson.databind.JsonNode`): not allowed as per `DeserializationFeature.FAIL_ON_TRAILING_TOKENS`");
    }

    @Test
    void framesMustBeTypedObjects() {
        assertCommandError("[1]", "$: expected a command object with a \"type\", got array [1]");
        assertCommandError("{'nonce':'n'}", "$: missing field \"type\"");
        assertCommandError("{'type':3}", "$.type: expected a string, got number 3");
        assertCommandError("{'type':'Frontiers'}", "$.type: unknown command type 'Frontiers'; expected one of Hello, CreateInstance, "
                + "InitializationComplete, UpdateConfiguration, CreateDataflow, Schedule, AllowCompaction, Peek, CancelPeek");
        assertResponseError("{'type':'Hello','nonce':'n'}", "$.type: unknown response type 'Hello'; expected one of Frontiers, PeekResponse, Status");
        assertResponseError("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Done'}}",
                "$.result.type: unknown peek result type 'Done'; expected one of Rows, Error, Canceled");
        assertResponseError("{'type':'PeekResponse','uuid':'" + U + "','result':'Canceled'}",
                "$.result: expected a peek result object with a \"type\", got string \"Canceled\"");
        assertResponseError("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Error','kind':'oops','message':'m'}}",
                "$.result.kind: unknown error kind 'oops'; expected one of [before_since, too_large, invalid, unknown_collection, failed]");
        assertResponseError("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Error','kind':'failed','message':'m','code':'oops'}}",
                "$.result.code: unknown error code 'oops'; expected one of " + java.util.Arrays.stream(EvalError.Code.values()).map(EvalError.Code::jsonName).toList());
        assertResponseError("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Error','kind':'too_large','message':'m','code':'data_exception'}}",
                "$.result.code: only an error of kind 'failed' has a code");
        assertResponseError("{'type':'Status','kind':'k'}", "$.kind: unknown status kind 'k'; expected one of "
                + "[hydrated, dataflow_rejected, dataflow_failed, dataflow_over_budget, duplicate_peek, refused, protocol_error]");
    }

    @Test
    void unknownFieldsAreRejected() {
        assertCommandError("{'type':'Hello','nonce':'n','extra':1}", "$: unknown field 'extra'; expected nonce, type");
        assertCommandError("{'type':'InitializationComplete','x':null}", "$: unknown field 'x'; expected type");
        assertCommandError("{'type':'UpdateConfiguration','parameters':{'max_rows':1}}", "$.parameters: unknown field 'max_rows'; expected max_result_rows");
        assertCommandError("{'type':'Peek','uuid':'" + U + "','target':'u9','timestamp':7,'finishing':{'top':1}}",
                "$.finishing: unknown field 'top'; expected limit, offset, order_by");
        assertResponseError("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Rows','types':[],'rows':[],"
                        + "'info':{'timestamp':7,'upper':[8],'since':[0],'hydrated':true,'replica':'r1'}}}",
                "$.result.info: unknown field 'replica'; expected hydrated, runtime, since, timestamp, upper");
    }

    @Test
    void missingRequiredFieldsAreRejected() {
        assertCommandError("{'type':'Hello'}", "$: missing field \"nonce\"");
        assertCommandError("{'type':'UpdateConfiguration'}", "$: missing field \"parameters\"");
        assertCommandError("{'type':'CreateDataflow'}", "$: missing field \"dataflow\"");
        assertCommandError("{'type':'AllowCompaction','id':'u1'}", "$: missing field \"frontier\"");
        assertCommandError("{'type':'Peek','uuid':'" + U + "','target':'u9'}", "$: missing field \"timestamp\"");
        assertCommandError("{'type':'Peek','uuid':'" + U + "','target':'u9','timestamp':1,'literal_keys':{'rows':[]}}",
                "$.literal_keys: missing field \"types\"");
        assertResponseError("{'type':'Frontiers','id':'u1','write_frontier':[1]}", "$: missing field \"input_frontier\"");
        assertResponseError("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Rows','types':[],'rows':[]}}",
                "$.result: missing field \"info\"");
        assertResponseError("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Rows','types':[],'rows':[],'info':{'timestamp':7,'upper':[8],'since':[0]}}}",
                "$.result.info: missing field \"hydrated\"");
        assertResponseError("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Error'}}", "$.result: missing field \"message\"");
        assertResponseError("{'type':'Status'}", "$: missing field \"kind\"");
    }

    @Test
    void valuesOfTheWrongTypeAreRejected() {
        assertCommandError("{'type':'Hello','nonce':null}", "$.nonce: expected a string, got null");
        assertCommandError("{'type':'Schedule','id':7}", "$.id: expected a string, got number 7");
        assertCommandError("{'type':'CreateInstance','logging':{'level':3}}", "$.logging.level: expected a string, got number 3");
        assertCommandError("{'type':'CreateInstance','logging':[]}", "$.logging: expected an object of string settings, got array []");
        assertCommandError("{'type':'UpdateConfiguration','parameters':{'max_result_rows':-1}}",
                "$.parameters.max_result_rows: expected a non-negative integer, got number -1");
        assertCommandError("{'type':'UpdateConfiguration','parameters':[]}", "$.parameters: expected an object, got array []");
        assertCommandError("{'type':'CancelPeek','uuid':'not-a-uuid'}", "$.uuid: expected a UUID of 8-4-4-4-12 hex digits, got string \"not-a-uuid\"");
        assertCommandError("{'type':'CancelPeek','uuid':'1-1-1-1-1'}", "$.uuid: expected a UUID of 8-4-4-4-12 hex digits, got string \"1-1-1-1-1\"");
        assertCommandError("{'type':'Peek','uuid':'" + U + "','target':'u9','timestamp':1.5}", "$.timestamp: expected a non-negative integer, got number 1.5");
        assertCommandError("{'type':'Peek','uuid':'" + U + "','target':'u9','timestamp':'7'}", "$.timestamp: expected a non-negative integer, got string \"7\"");
        assertCommandError("{'type':'Peek','uuid':'" + U + "','target':'u9','timestamp':99999999999999999999}",
                "$.timestamp: expected a non-negative integer, got number 99999999999999999999");
        assertResponseError("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Rows','types':[],'rows':[],"
                        + "'info':{'timestamp':7,'upper':[8],'since':[0],'hydrated':'yes'}}}",
                "$.result.info.hydrated: expected true or false, got string \"yes\"");
    }

    @Test
    void frontiersAreArraysOfAtMostOneTime() {
        assertCommandError("{'type':'AllowCompaction','id':'u1','frontier':5}", "$.frontier: expected a frontier [t] or [], got number 5");
        assertCommandError("{'type':'AllowCompaction','id':'u1','frontier':[1,2]}",
                "$.frontier: a frontier of totally ordered times has at most one element, got 2");
        assertCommandError("{'type':'AllowCompaction','id':'u1','frontier':[-1]}", "$.frontier[0]: expected a non-negative integer, got number -1");
        assertResponseError("{'type':'Frontiers','id':'u1','write_frontier':[1],'input_frontier':null}",
                "$.input_frontier: expected a frontier [t] or [], got null");
    }

    @Test
    void typedRowsAreCheckedDatumByDatum() {
        String peek = "{'type':'Peek','uuid':'" + U + "','target':'u9','timestamp':1,'literal_keys':";
        assertCommandError(peek + "{'types':['int64','text'],'rows':[]}}",
                "$.literal_keys.types[1]: unknown type 'text'; expected one of bool, int64, float64, string, timestamp, numeric, date, timestamptz, uuid, interval, jsonb, bytea, time"
                        + " or an array of bool, int64, float64, string, timestamp, numeric, date, timestamptz or uuid (\"int64_array\")");
        assertCommandError(peek + "{'types':'int64','rows':[]}}", "$.literal_keys.types: expected an array of type names, got string \"int64\"");
        assertCommandError(peek + "{'types':['int64'],'rows':[1]}}", "$.literal_keys.rows[0]: expected a row (an array of 1 values), got number 1");
        assertCommandError(peek + "{'types':['int64'],'rows':{}}}", "$.literal_keys.rows: expected an array of rows, got object {}");
        assertCommandError(peek + "{'types':['int64','bool'],'rows':[[1,true],[2]]}}",
                "$.literal_keys.rows[1]: expected 2 values as in \"types\", got 1");
        assertCommandError(peek + "{'types':['int64','bool'],'rows':[[1,true],[2,'no']]}}",
                "$.literal_keys.rows[1][1]: expected bool, got string \"no\"");
        assertCommandError(peek + "{'types':['int64'],'rows':[['12x']]}}", "$.literal_keys.rows[0][0]: expected int64, got string '12x'");
        assertCommandError(peek + "{'types':['timestamp'],'rows':[['yesterday']]}}",
                "$.literal_keys.rows[0][0]: not an ISO-8601 timestamp: 'yesterday'");
        assertResponseError("{'type':'PeekResponse','uuid':'" + U + "','result':{'type':'Rows','types':['float64'],'rows':[[1],['nan']],"
                        + "'info':{'timestamp':7,'upper':[8],'since':[0],'hydrated':true}}}",
                "$.result.rows[1][0]: expected float64, got string \"nan\"");
    }

    @Test
    void nestedMfpDataflowAndFinishingErrorsCarryTheFullPath() {
        String peek = "{'type':'Peek','uuid':'" + U + "','target':'u9','timestamp':1,";
        assertCommandError(peek + "'mfp':{'filter':[{'call':'and','args':[{'lit':true},{'call':'foo'}]}]}}",
                "$.mfp.filter[0].args[1]: unknown function 'foo'");
        assertCommandError(peek + "'mfp':{'maps':[]}}", "$.mfp: unknown field 'maps'; expected filter, map, project");
        assertCommandError(peek + "'finishing':{'order_by':[{'col':0},{'col':-1}]}}",
                "$.finishing.order_by[1].col: expected a non-negative integer, got number -1");
        assertCommandError(peek + "'finishing':{'order_by':{'col':0}}}", "$.finishing.order_by: expected an array of orderings, got object {\"col\":0}");
        assertCommandError(peek + "'finishing':{'limit':-3}}", "$.finishing.limit: expected a non-negative integer, got number -3");
        assertCommandError("{'type':'CreateDataflow','dataflow':{'objects_to_build':[{'id':'t1','plan':{'op':'get'}}],'as_of':0}}",
                "$.dataflow.objects_to_build[0].plan: a get needs exactly one of \"id\" and \"name\"");
        assertCommandError("{'type':'CreateDataflow','dataflow':{}}", "$.dataflow: missing field \"as_of\"");
        assertCommandError("{'type':'CreateDataflow','dataflow':7}", "$.dataflow: expected a dataflow description object, got number 7");
    }

    @Test
    void rowsOfOneListMustShareTheirTypesToBeWritten() {
        ComputeResponse mixed = new ComputeResponse.PeekResponse(UUID_U, new ComputeResponse.Rows(List.of(Row.of(1L), Row.of("a")),
                new ComputeResponse.ReadInfo(1, Frontier.at(2), Frontier.MIN, true, null)));
        assertThatThrownBy(() -> ProtocolJson.write(mixed)).isInstanceOf(ProtocolException.class)
                .hasMessage("$.result.rows[1]: column types [string] differ from [int64] of the first row; the rows of one list share their types");
        ComputeCommand nullTyped = new ComputeCommand.Peek(UUID_U, "u9", 1,
                List.of(Row.of(1L), Row.pack(List.of(DatumType.STRING), Arrays.asList((Object) null))), null, null, null);
        assertThatThrownBy(() -> ProtocolJson.write(nullTyped)).isInstanceOf(ProtocolException.class)
                .hasMessage("$.literal_keys.rows[1]: column types [string] differ from [int64] of the first row; the rows of one list share their types");
    }
}
